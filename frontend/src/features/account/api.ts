import { useMutation, useQueryClient } from '@tanstack/react-query';
// Only the plain fetch functions of the auth module: the sign-in page shares that module, and
// using its react-query hooks here would put react-query into the sign-in page's bundle.
import { changeMyPassword, updateMe } from '@/api/generated/auth/auth';
import type { ChangePassword, UpdateMe, User } from '@/api/generated/model';
import { invalidate } from '@/lib/query-invalidation';
import { session } from '@/lib/session';

/**
 * PUT /auth/me. Its answer, the account as it now is, is for the caller to keep with
 * `keepAccount` once it has said so: keeping it re-renders the profile's sections (they follow
 * the account), and react-query drops a `mutate` call's own callbacks once their component is gone.
 */
export function useUpdateMeMutation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ data }: { data: UpdateMe }) => updateMe(data),
    // The name shows in the user lists too.
    onSuccess: () => invalidate.users(client),
  });
}

/** The account as PUT /auth/me answered it: shown at once in the header and the screens. */
export const keepAccount = (user: User) => session.updateUser(user);

/** PUT /auth/me/password: the person's other sessions end, so the session lists change. */
export function useChangeMyPasswordMutation() {
  const client = useQueryClient();
  return useMutation({ mutationFn: ({ data }: { data: ChangePassword }) => changeMyPassword(data), onSuccess: () => invalidate.sessions(client) });
}
