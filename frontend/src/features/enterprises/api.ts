import { useQueryClient } from '@tanstack/react-query';
import {
  useCreateEnterprise,
  useDeleteEnterprise,
  usePurgeEnterprise,
  useRestoreEnterprise,
  useUpdateEnterprise,
} from '@/api/generated/enterprises/enterprises';
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

/** Deleting suspends the enterprise and schedules its purge: it is still there, changed. */
export function useDeleteEnterpriseMutation() {
  const client = useQueryClient();
  return useDeleteEnterprise({ mutation: { onSuccess: () => invalidate.users(client) } });
}

export function useRestoreEnterpriseMutation() {
  const client = useQueryClient();
  return useRestoreEnterprise({ mutation: { onSuccess: () => invalidate.users(client) } });
}

/**
 * `onPurged` runs first (leave the enterprise's page): forgetting its reads while the page is
 * still mounted would refetch them, show "not found" and unmount the page before the caller's own
 * callbacks run, which React Query then never calls.
 */
export function usePurgeEnterpriseMutation(onPurged: () => void) {
  const client = useQueryClient();
  return usePurgeEnterprise({
    mutation: {
      onSuccess: (_, { id }) => {
        onPurged();
        return invalidate.deletedEnterprise(client, id);
      },
    },
  });
}
