import { QueryClient } from '@tanstack/react-query';
import { isApiRequestError } from '@/api/mutator';

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
