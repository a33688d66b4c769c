import { useQueryClient } from '@tanstack/react-query';
import { useCreateEnterprise, useDeleteEnterprise, useUpdateEnterprise } from '@/api/generated/enterprises/enterprises';
import { invalidate } from '@/lib/query-invalidation';

/** The enterprise mutations, each refreshing the reads it changes. */
export function useCreateEnterpriseMutation() {
  const client = useQueryClient();
  // A new enterprise brings a new CEO account: the user lists change too.
  return useCreateEnterprise({ mutation: { onSuccess: () => invalidate.users(client) } });
}

export function useUpdateEnterpriseMutation() {
  const client = useQueryClient();
  // Deactivating signs its people out: their user rows do not change, but refresh them anyway.
  return useUpdateEnterprise({ mutation: { onSuccess: () => invalidate.users(client) } });
}

export function useDeleteEnterpriseMutation() {
  const client = useQueryClient();
  return useDeleteEnterprise({ mutation: { onSuccess: (_, { id }) => invalidate.deletedEnterprise(client, id) } });
}
