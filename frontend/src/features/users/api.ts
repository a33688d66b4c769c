import { useMutation, useQueryClient } from '@tanstack/react-query';
import { resetUserMfa } from '@/api/generated/security/security';
import { useListEnterpriseDepartments } from '@/api/generated/enterprises/enterprises';
import type { UpdateUser } from '@/api/generated/model';
import { useCreateUser, useDeleteUser, useEraseUser, useUpdateUser } from '@/api/generated/users/users';
import { invalidate } from '@/lib/query-invalidation';
import { session } from '@/lib/session';
import { sortDepartments } from '@/components/departments/department-order';

/**
 * `PUT /users/{id}` takes `departmentId: null` to take someone out of their department, but
 * openapi.json declares it as a plain string, so the generated type cannot say null.
 */
export type UserChanges = Omit<UpdateUser, 'departmentId'> & { departmentId?: string | null };

export function useCreateUserMutation() {
  const client = useQueryClient();
  return useCreateUser({ mutation: { onSuccess: () => invalidate.users(client) } });
}

export function useUpdateUserMutation() {
  const client = useQueryClient();
  const mutation = useUpdateUser({
    mutation: {
      onSuccess: (user) => {
        // Editing one's own account: the header and the dashboard show the new name at once.
        const current = session.get();
        if (current.status === 'signed_in' && current.user.id === user.id) session.updateUser(user);
        return invalidate.users(client);
      },
    },
  });
  return {
    ...mutation,
    mutate: (variables: { id: string; data: UserChanges }, options?: Parameters<typeof mutation.mutate>[1]) =>
      mutation.mutate({ id: variables.id, data: variables.data as UpdateUser }, options),
  };
}

export function useDeleteUserMutation() {
  const client = useQueryClient();
  return useDeleteUser({ mutation: { onSuccess: () => invalidate.users(client) } });
}

/** Erasing renames the person everywhere they appear: every user read and what names them. */
export function useEraseUserMutation() {
  const client = useQueryClient();
  return useEraseUser({ mutation: { onSuccess: () => invalidate.users(client) } });
}

/** An enterprise's departments in the interface's order (none without an enterprise). */
export function useDepartments(enterpriseId: string | null | undefined) {
  const query = useListEnterpriseDepartments(enterpriseId ?? '', { query: { enabled: Boolean(enterpriseId), staleTime: 60_000 } });
  return { query, departments: query.data ? sortDepartments(query.data) : [] };
}

/** DELETE /users/{id}/mfa: their authenticator and recovery codes go, and their sessions end. */
export function useResetUserMfaMutation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id }: { id: string }) => resetUserMfa(id),
    onSuccess: () => Promise.all([invalidate.users(client), invalidate.sessions(client)]),
  });
}
