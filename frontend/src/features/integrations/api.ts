import { type QueryKey, keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiError, CreateApiToken } from '@/api/generated/model';
import {
  createApiToken,
  createServiceToken,
  deleteApiToken,
  deleteServiceToken,
  getListApiTokensQueryKey,
  getListServiceTokensQueryKey,
  listApiTokens,
  listServiceTokens,
} from '@/api/generated/tokens/tokens';
import type { ErrorType } from '@/api/mutator';
import { PAGE_SIZE } from '@/lib/list-params';

/** Whose tokens a list shows: the caller's own, or an enterprise's service credentials. */
export type TokenOwner = { kind: 'personal' } | { kind: 'service'; enterpriseId: string };

/** Every page of the owner's list (orval's keys start with the request path). */
const listKey = (owner: TokenOwner): QueryKey => (owner.kind === 'personal' ? getListApiTokensQueryKey() : getListServiceTokensQueryKey(owner.enterpriseId));

/** One page of the owner's live tokens; the previous page stays on screen while the next loads. */
export function useTokenList(owner: TokenOwner, page: number) {
  const params = { page, pageSize: PAGE_SIZE };
  return useQuery({
    queryKey: [...listKey(owner), params],
    queryFn: ({ signal }) => (owner.kind === 'personal' ? listApiTokens(params, { signal }) : listServiceTokens(owner.enterpriseId, params, { signal })),
    placeholderData: keepPreviousData,
  });
}

/**
 * Makes a token; the answer holds its secret, once. The list is refreshed. The answer is not kept
 * in the mutation cache once its observer lets go of it (`reset()`, or the form unmounting).
 */
export function useCreateToken(owner: TokenOwner) {
  const client = useQueryClient();
  return useMutation<Awaited<ReturnType<typeof createApiToken>>, ErrorType<ApiError>, CreateApiToken>({
    mutationFn: (data) => (owner.kind === 'personal' ? createApiToken(data) : createServiceToken(owner.enterpriseId, data)),
    gcTime: 0,
    onSuccess: () => client.invalidateQueries({ queryKey: listKey(owner) }),
  });
}

/** Revokes a token; the list is refreshed whatever the answer (a 404: it was gone already). */
export function useRevokeToken(owner: TokenOwner) {
  const client = useQueryClient();
  return useMutation<void, ErrorType<ApiError>, string>({
    mutationFn: (id) => (owner.kind === 'personal' ? deleteApiToken(id) : deleteServiceToken(owner.enterpriseId, id)),
    onSettled: () => client.invalidateQueries({ queryKey: listKey(owner) }),
  });
}
