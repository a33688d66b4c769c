import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
// Only the plain fetch functions of the auth module: the sign-in page shares that module, and
// using its react-query hooks here would put react-query into the sign-in page's bundle.
import { getListMySessionsQueryKey, listMySessions, logoutMySession } from '@/api/generated/auth/auth';
import type { ListMySessionsParams } from '@/api/generated/model';
import { useLogoutOtherSessions, useLogoutSession } from '@/api/generated/monitoring/monitoring';
import { invalidate } from '@/lib/query-invalidation';

// The server also announces every ended session to the monitors (the real-time client refreshes
// them); refreshing here as well shows the change at once, socket or not.

/** POST /monitoring/sessions/{id}/logout. */
export function useLogoutSessionMutation() {
  const client = useQueryClient();
  return useLogoutSession({ mutation: { onSuccess: () => invalidate.sessions(client) } });
}

/** POST /monitoring/sessions/{id}/logout-others: every other live session of that session's user. */
export function useLogoutOtherSessionsMutation() {
  const client = useQueryClient();
  return useLogoutOtherSessions({ mutation: { onSuccess: () => invalidate.sessions(client) } });
}

/**
 * GET /auth/sessions: the caller's own sessions. The socket's `own_sessions.changed` refreshes
 * them when one starts or ends (app/layout/useRealtime.ts); `lastSeenAt` moves without an event,
 * so the list is read again when the window comes back.
 */
export function useMySessions(params: ListMySessionsParams, enabled: boolean) {
  return useQuery({
    queryKey: getListMySessionsQueryKey(params),
    queryFn: ({ signal }) => listMySessions(params, { signal }),
    enabled,
    refetchOnWindowFocus: 'always',
  });
}

/** POST /auth/sessions/{id}/logout: one of the caller's own sessions. */
export function useLogoutMySessionMutation() {
  const client = useQueryClient();
  return useMutation({ mutationFn: ({ id }: { id: string }) => logoutMySession(id), onSuccess: () => invalidate.sessions(client) });
}
