import { QueryClient } from '@tanstack/react-query';
import { isApiRequestError } from '@/api/mutator';
import { session } from '@/lib/session';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        // Retry network blips and server errors, never answers that will not change.
        retry: (failureCount, error) => failureCount < 2 && !(isApiRequestError(error) && error.status < 500),
      },
    },
  });
}

let shared: QueryClient | undefined;

/**
 * The app's query cache, made when the signed-in frame first needs it (react-query loads with
 * that frame, not with the sign-in page). Nothing cached for one user may leak to the next one:
 * it is emptied whenever a session ends.
 */
export function appQueryClient(): QueryClient {
  if (!shared) {
    const client = createQueryClient();
    session.onEnd(() => client.clear());
    shared = client;
  }
  return shared;
}
