import { Badge, Button, Code, Group, Loader, Modal, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { IconRefresh, IconSend, IconSend2 } from '@tabler/icons-react';
import type { ParseKeys, TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Notice, InlineNotice } from '@/components/forms/InlineNotice';
import type { Webhook, WebhookDelivery } from '@/api/generated/model';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { StackedTable } from '@/components/data/StackedTable';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { errorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import { useDeliveries, useRedeliver, useSendTestEvent } from '../webhook-api';
import { eventParts, isWebhookEvent } from '../webhook-events';
import classes from './WebhookManager.module.css';

// Never cut a badge short (a narrow column would truncate it).
const BADGE_STYLE = { textTransform: 'none', minWidth: 'max-content' } as const;

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
const STATUS_COLORS: Record<DeliveryStatus, string> = { pending: 'blue', delivered: 'teal', failed: 'red' };
const isDeliveryStatus = (value: string): value is DeliveryStatus => (DELIVERY_STATUSES as readonly string[]).includes(value);

/** Why an attempt failed (the API's `WebhookDelivery.lastError`). */
const DELIVERY_ERRORS = ['http_status', 'timeout', 'connection_failed', 'request_failed', 'private_address', 'port_not_allowed', 'webhook_disabled'] as const;
type DeliveryError = (typeof DELIVERY_ERRORS)[number];
const isDeliveryError = (value: string): value is DeliveryError => (DELIVERY_ERRORS as readonly string[]).includes(value);

/** An event's name in the interface language: `report.approved` is "Report approved", the test event "Test event". */
export function eventLabel(event: string, t: TFunction): string | null {
  if (event === 'webhook.test') return t('webhooks.deliveries.testEvent');
  if (!isWebhookEvent(event)) return null;
  const { area, verb } = eventParts(event);
  return t(`webhooks.events.${area}.${verb}` as ParseKeys);
}

/** What the receiver last answered: its HTTP status, why there was none, or nothing yet. */
function lastAnswer(delivery: WebhookDelivery, t: TFunction): string {
  const parts: string[] = [];
  if (delivery.lastStatus !== null && delivery.lastStatus !== undefined) parts.push(t('webhooks.deliveries.httpStatus', { status: delivery.lastStatus }));
  const error = delivery.lastError;
  if (error && error !== 'http_status') parts.push(isDeliveryError(error) ? t(`webhooks.deliveries.errors.${error}`) : error);
  return parts.length > 0 ? parts.join(' · ') : '—';
}

function DeliveryStatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  return (
    <Badge color={isDeliveryStatus(status) ? STATUS_COLORS[status] : 'gray'} variant="light" style={BADGE_STYLE} data-testid="delivery-status">
      {isDeliveryStatus(status) ? t(`webhooks.deliveries.status.${status}`) : status}
    </Badge>
  );
}

type WebhookDeliveriesDialogProps = {
  /** The webhook whose deliveries are shown; kept while the dialog closes. */
  webhook: Webhook | null;
  opened: boolean;
  onClose: () => void;
};

/**
 * A webhook's deliveries, newest first, a page at a time: each event sent, its attempts, what
 * the receiver last answered, the next attempt and when it was delivered, with a way to send one
 * again and to send a test event. Read again every moment while one is about to go out.
 */
export function WebhookDeliveriesDialog({ webhook, opened, onClose }: WebhookDeliveriesDialogProps) {
  const { t } = useTranslation();
  // The page belongs to the webhook shown: another webhook starts on its first page.
  const [paging, setPaging] = useState({ webhookId: '', page: 1 });
  const page = webhook && paging.webhookId === webhook.id ? paging.page : 1;
  const deliveries = useDeliveries(opened && webhook ? webhook.id : null, page);
  const test = useSendTestEvent();
  // What the last test or redelivery came to, said in the dialog (it lies over the toasts); each
  // opening starts without it (state adjusted while rendering).
  const [notice, setNotice] = useState<Notice | null>(null);
  const [seenOpened, setSeenOpened] = useState(opened);
  if (opened !== seenOpened) {
    setSeenOpened(opened);
    if (opened) setNotice(null);
  }

  const sendTest = () => {
    if (!webhook) return;
    setNotice(null);
    test.mutate(webhook.id, {
      onSuccess: () => {
        setNotice({ success: true, message: t('webhooks.test.success', { url: webhook.url }) });
        // The new delivery is the newest: on the first page.
        setPaging({ webhookId: webhook.id, page: 1 });
      },
      onError: (error) => setNotice({ title: t('webhooks.test.failed'), message: errorMessage(error, t) }),
    });
  };

  return (
    <Modal opened={opened} onClose={onClose} title={t('webhooks.deliveries.title')} size="72rem">
      {webhook && (
        <Stack gap="md">
          <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {t('webhooks.deliveries.subtitle', { url: webhook.url })}
          </Text>
          <Group justify="space-between" gap="sm">
            <Button leftSection={<IconSend size={16} aria-hidden />} onClick={sendTest} loading={test.isPending} disabled={!webhook.enabled}>
              {t('webhooks.actions.test')}
            </Button>
            <Group gap="sm">
              {deliveries.isFetching && !deliveries.isPending && <Loader size="xs" role="status" aria-label={t('app.loading')} />}
              <Button variant="default" leftSection={<IconRefresh size={16} aria-hidden />} onClick={() => void deliveries.refetch()}>
                {t('webhooks.deliveries.refresh')}
              </Button>
            </Group>
          </Group>
          <InlineNotice notice={notice} onClose={() => setNotice(null)} />
          {!webhook.enabled && (
            <Text size="sm" c="dimmed">
              {t('webhooks.deliveries.offHint')}
            </Text>
          )}
          <DeliveryList
            webhook={webhook}
            query={deliveries}
            page={page}
            onPage={(next) => setPaging({ webhookId: webhook.id, page: next })}
            onOutcome={setNotice}
          />
        </Stack>
      )}
    </Modal>
  );
}

type DeliveryListProps = {
  webhook: Webhook;
  query: ReturnType<typeof useDeliveries>;
  page: number;
  onPage: (page: number) => void;
  onOutcome: (notice: Notice | null) => void;
};

function DeliveryList({ webhook, query, page, onPage, onOutcome }: DeliveryListProps) {
  const { t } = useTranslation();
  const format = useFormat();
  const redeliver = useRedeliver();

  const send = (delivery: WebhookDelivery) => {
    onOutcome(null);
    redeliver.mutate(
      { webhookId: webhook.id, deliveryId: delivery.id },
      {
        onSuccess: () => onOutcome({ success: true, message: t('webhooks.deliveries.redelivered') }),
        onError: (error) => onOutcome({ title: t('webhooks.deliveries.redeliverFailed'), message: errorMessage(error, t) }),
      },
    );
  };

  if (query.isPending) return <TableSkeleton rows={3} />;
  if (query.isError) return <QueryError error={query.error} onRetry={() => void query.refetch()} retrying={query.isFetching} />;
  const { items, total, pageSize } = query.data;
  if (items.length === 0) {
    return <EmptyMessage icon={<IconSend2 size={32} aria-hidden />} title={t('webhooks.deliveries.empty')} description={t('webhooks.deliveries.emptyHint')} />;
  }
  return (
    <Stack gap="md">
      <StackedTable verticalSpacing="sm" aria-busy={query.isPlaceholderData} className={classes.deliveries}>
        <VisuallyHidden component="caption">{t('webhooks.deliveries.caption')}</VisuallyHidden>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t('webhooks.deliveries.fields.event')}</Table.Th>
            <Table.Th scope="col">{t('webhooks.deliveries.fields.status')}</Table.Th>
            <Table.Th scope="col">{t('webhooks.deliveries.fields.attempts')}</Table.Th>
            <Table.Th scope="col">{t('webhooks.deliveries.fields.lastAnswer')}</Table.Th>
            <Table.Th scope="col">{t('webhooks.deliveries.fields.nextAttempt')}</Table.Th>
            <Table.Th scope="col">{t('webhooks.deliveries.fields.deliveredAt')}</Table.Th>
            <Table.Th scope="col">
              <VisuallyHidden>{t('common.actions')}</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((delivery) => {
            const label = eventLabel(delivery.eventType, t);
            const created = format.dateTime(delivery.createdAt);
            return (
              <Table.Tr key={delivery.id} data-testid="delivery-row">
                <Table.Td data-title>
                  <Text size="sm" fw={500}>
                    {label ?? delivery.eventType}
                  </Text>
                  {label && <Code fz="xs">{delivery.eventType}</Code>}
                  <Text size="xs" c="dimmed">
                    {created}
                  </Text>
                </Table.Td>
                <Table.Td data-label={t('webhooks.deliveries.fields.status')}>
                  <DeliveryStatusBadge status={delivery.status} />
                </Table.Td>
                <Table.Td data-label={t('webhooks.deliveries.fields.attempts')}>{format.number(delivery.attempts)}</Table.Td>
                <Table.Td data-label={t('webhooks.deliveries.fields.lastAnswer')} data-testid="delivery-answer">
                  {lastAnswer(delivery, t)}
                </Table.Td>
                <Table.Td data-label={t('webhooks.deliveries.fields.nextAttempt')} className={classes.date}>
                  {delivery.status === 'pending' ? format.dateTime(delivery.nextAttemptAt) : '—'}
                </Table.Td>
                <Table.Td data-label={t('webhooks.deliveries.fields.deliveredAt')} className={classes.date}>
                  {format.dateTime(delivery.deliveredAt)}
                </Table.Td>
                <Table.Td ta="end" data-actions>
                  <Button
                    variant="subtle"
                    size="xs"
                    leftSection={<IconRefresh size={14} aria-hidden />}
                    aria-label={t('webhooks.deliveries.redeliverLabel', { event: label ?? delivery.eventType, date: created })}
                    onClick={() => send(delivery)}
                    loading={redeliver.isPending && redeliver.variables?.deliveryId === delivery.id}
                    disabled={!webhook.enabled}
                  >
                    {t('webhooks.deliveries.redeliver')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </StackedTable>
      <ListPagination page={page} pageSize={pageSize} total={total} onChange={onPage} label={t('webhooks.deliveries.pages')} />
    </Stack>
  );
}
