import { type Query, keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiError, CreateWebhook, UpdateWebhook, Webhook, WebhookDelivery, WebhookWithSecret } from '@/api/generated/model';
import {
  createWebhook,
  deleteWebhook,
  getListWebhookDeliveriesQueryKey,
  getWebhookUrlRules,
  listWebhookDeliveries,
  listWebhooks,
  redeliverWebhookDelivery,
  rotateWebhookSecret,
  sendWebhookTestEvent,
  updateWebhook,
} from '@/api/generated/webhooks/webhooks';
import type { ErrorType } from '@/api/mutator';
import { PAGE_SIZE } from '@/lib/list-params';

/**
 * Whose webhooks a list shows: an enterprise's (a CEO's own, without an id: the server knows it;
 * the platform admin names the enterprise), or the platform's own, which hear every enterprise.
 */
export type WebhookScope = { kind: 'enterprise'; enterpriseId?: string } | { kind: 'platform' };

/** The `enterpriseId` query parameter the scope sends (none for a CEO's own or the platform's). */
const scopeParams = (scope: WebhookScope) => (scope.kind === 'enterprise' && scope.enterpriseId ? { enterpriseId: scope.enterpriseId } : {});

// orval's keys start with the request path: every webhook read is under /api/v1/webhooks.
const WEBHOOKS = '/api/v1/webhooks';
const isWebhookRead = (query: Query) => {
  const path = query.queryKey[0];
  return typeof path === 'string' && (path === WEBHOOKS || path.startsWith(`${WEBHOOKS}/`));
};

/** The addresses this server accepts for a webhook's URL: fixed while it runs, read once. */
export function useWebhookUrlRules(enabled: boolean) {
  return useQuery({ queryKey: [`${WEBHOOKS}/url-rules`], queryFn: ({ signal }) => getWebhookUrlRules({ signal }), staleTime: Infinity, enabled });
}

/** One page of the scope's webhooks; the previous page stays on screen while the next loads. */
export function useWebhookList(scope: WebhookScope, page: number) {
  const params = { ...scopeParams(scope), page, pageSize: PAGE_SIZE };
  return useQuery({
    queryKey: [WEBHOOKS, params],
    queryFn: ({ signal }) => listWebhooks(params, { signal }),
    placeholderData: keepPreviousData,
  });
}

/** Every webhook read (lists and deliveries) is refreshed after a change. */
function useRefreshWebhooks() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ predicate: isWebhookRead });
}

/**
 * Makes a webhook; the answer holds its signing secret, once. Like a new token's, the answer is
 * not kept in the mutation cache once its observer lets go of it.
 */
export function useCreateWebhook(scope: WebhookScope) {
  const refresh = useRefreshWebhooks();
  return useMutation<WebhookWithSecret, ErrorType<ApiError>, CreateWebhook>({
    mutationFn: (data) => createWebhook(data, scopeParams(scope)),
    gcTime: 0,
    onSuccess: refresh,
  });
}

/** Changes a webhook: its URL, events or description, or turns it off or back on. */
export function useUpdateWebhook() {
  const refresh = useRefreshWebhooks();
  return useMutation<Webhook, ErrorType<ApiError>, { id: string; data: UpdateWebhook }>({
    mutationFn: ({ id, data }) => updateWebhook(id, data),
    onSuccess: refresh,
  });
}

/** Deletes a webhook; the list is refreshed whatever the answer (a 404: it was gone already). */
export function useDeleteWebhook() {
  const refresh = useRefreshWebhooks();
  return useMutation<void, ErrorType<ApiError>, string>({
    mutationFn: (id) => deleteWebhook(id),
    onSettled: refresh,
  });
}

/**
 * A new signing secret, shown once; the previous one signs for 24 hours more, or stops at once
 * with `expirePrevious` (it leaked).
 */
export function useRotateWebhookSecret() {
  const refresh = useRefreshWebhooks();
  return useMutation<WebhookWithSecret, ErrorType<ApiError>, { id: string; expirePrevious: boolean }>({
    mutationFn: ({ id, expirePrevious }) => rotateWebhookSecret(id, expirePrevious ? { previousSecretHours: 0 } : undefined),
    gcTime: 0,
    onSuccess: refresh,
  });
}

/** Queues a `webhook.test` event to this webhook alone; its deliveries are refreshed. */
export function useSendTestEvent() {
  const refresh = useRefreshWebhooks();
  return useMutation<WebhookDelivery, ErrorType<ApiError>, string>({
    mutationFn: (id) => sendWebhookTestEvent(id),
    onSuccess: refresh,
  });
}

/** Sends a delivery again now, with a fresh round of retries. */
export function useRedeliver() {
  const refresh = useRefreshWebhooks();
  return useMutation<WebhookDelivery, ErrorType<ApiError>, { webhookId: string; deliveryId: string }>({
    mutationFn: ({ webhookId, deliveryId }) => redeliverWebhookDelivery(webhookId, deliveryId),
    onSuccess: refresh,
  });
}

/** How often the deliveries are read again while one is about to go out, and while one waits for a later retry. */
const SOON_REFRESH_MS = 1500;
const LATER_REFRESH_MS = 30_000;
/** A pending delivery whose next attempt is at most this far off is "about to go out". */
const SOON_MS = 60_000;

function refreshInterval(deliveries: readonly WebhookDelivery[] | undefined): number | false {
  const pending = (deliveries ?? []).filter((delivery) => delivery.status === 'pending');
  if (pending.length === 0) return false;
  const now = Date.now();
  const soon = pending.some((delivery) => !delivery.nextAttemptAt || Date.parse(delivery.nextAttemptAt) - now < SOON_MS);
  return soon ? SOON_REFRESH_MS : LATER_REFRESH_MS;
}

/**
 * One page of a webhook's deliveries, newest first. While one of them is pending, the page is
 * read again: every moment when it is about to go out (the dispatcher sends within a second),
 * now and then while it waits for a later retry.
 */
export function useDeliveries(webhookId: string | null, page: number) {
  const params = { page, pageSize: PAGE_SIZE };
  const queryKey = getListWebhookDeliveriesQueryKey(webhookId ?? '', params);
  return useQuery({
    queryKey,
    queryFn: ({ signal }) => listWebhookDeliveries(webhookId ?? '', params, { signal }),
    enabled: webhookId !== null,
    // The previous page stays while the next loads; another webhook's deliveries never stand in.
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[0] === queryKey[0] ? previous : undefined),
    refetchInterval: (query) => refreshInterval(query.state.data?.items),
  });
}
