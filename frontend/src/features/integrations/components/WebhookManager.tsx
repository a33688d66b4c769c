import { ActionIcon, Alert, Badge, Button, Card, Group, Loader, Menu, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import {
  IconAlertOctagon,
  IconDots,
  IconKey,
  IconListDetails,
  IconPencil,
  IconPlayerPause,
  IconPlayerPlay,
  IconPlus,
  IconSend,
  IconTrash,
  IconWebhook,
} from '@tabler/icons-react';
import type { ParseKeys } from 'i18next';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Webhook, WebhookWithSecret } from '@/api/generated/model';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { StackedTable } from '@/components/data/StackedTable';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { errorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import { notify } from '@/lib/notify';
import { type WebhookScope, useDeleteWebhook, useRotateWebhookSecret, useSendTestEvent, useUpdateWebhook, useWebhookList } from '../webhook-api';
import { EVENT_AREAS, EVENT_GROUPS, areaState, eventParts, isWebhookEvent } from '../webhook-events';
import { confirmDeleteWebhook, confirmDisableWebhook, confirmRotateWebhookSecret } from './webhook-confirmations';
import { WebhookDeliveriesDialog } from './WebhookDeliveriesDialog';
import { WebhookFormDialog } from './WebhookFormDialog';
import classes from './WebhookManager.module.css';
import { WebhookSecretDialog } from './WebhookSecretDialog';

// Never cut a badge short (a narrow column would truncate it).
const BADGE_STYLE = { textTransform: 'none', minWidth: 'max-content' } as const;

/** Turned off by the server after failing for days (not by a person). */
const turnedOffFailing = (webhook: Webhook) => !webhook.enabled && webhook.disabledReason === 'failing';

/** Its state, as a badge: on, on but failing, off, or turned off for failing. */
function WebhookStatusBadge({ webhook }: { webhook: Webhook }) {
  const { t } = useTranslation();
  const [color, key]: [string, ParseKeys] = webhook.enabled
    ? webhook.failingSince
      ? ['orange', 'webhooks.status.failing']
      : ['teal', 'webhooks.status.active']
    : turnedOffFailing(webhook)
      ? ['red', 'webhooks.status.turnedOff']
      : ['gray', 'webhooks.status.off'];
  return (
    <Badge color={color} variant="light" style={BADGE_STYLE} data-testid="webhook-status">
      {t(key)}
    </Badge>
  );
}

/**
 * The events it hears: a whole area (of more than one event) as one badge, the others one by
 * one; those this client does not know by their names.
 */
function EventBadges({ events }: { events: readonly string[] }) {
  const { t } = useTranslation();
  const badges: { key: string; label: string }[] = [];
  for (const area of EVENT_AREAS) {
    if (EVENT_GROUPS[area].length > 1 && areaState(events, area) === 'all') badges.push({ key: area, label: t(`webhooks.areaAll.${area}`) });
    else {
      for (const event of EVENT_GROUPS[area].filter((name) => events.includes(name))) {
        const { verb } = eventParts(event);
        badges.push({ key: event, label: t(`webhooks.events.${area}.${verb}` as ParseKeys) });
      }
    }
  }
  for (const event of events.filter((name) => !isWebhookEvent(name))) badges.push({ key: event, label: event });
  return (
    <Group gap={4} wrap="wrap">
      {badges.map(({ key, label }) => (
        <Badge key={key} variant="light" color="blue" style={BADGE_STYLE}>
          {label}
        </Badge>
      ))}
    </Group>
  );
}

type Editing = { webhook: Webhook | null; opened: boolean };
type Secret = { webhook: WebhookWithSecret | null; rotated: boolean; previousExpired: boolean; opened: boolean };
type Deliveries = { webhook: Webhook | null; opened: boolean };

/**
 * The webhooks of an enterprise or of the platform (`scope`), with all that can be done to them:
 * made (the signing secret shown once), edited, turned off and on, tested, their secret rotated,
 * deleted, and their deliveries read and sent again. One that the server turned off because it
 * kept failing is announced above the list, with a way to turn it back on.
 */
export function WebhookManager({ scope }: { scope: WebhookScope }) {
  const { t } = useTranslation();
  const format = useFormat();
  const headingId = useId();
  // At most 20 webhooks (the server's limit): the page lives here, not in the URL, which the
  // service credentials' list beside this one uses.
  const [page, setPage] = useState(1);
  const webhooks = useWebhookList(scope, page);
  const update = useUpdateWebhook();
  const remove = useDeleteWebhook();
  const rotate = useRotateWebhookSecret();
  const test = useSendTestEvent();
  const [editing, setEditing] = useState<Editing>({ webhook: null, opened: false });
  const [secret, setSecret] = useState<Secret>({ webhook: null, rotated: false, previousExpired: false, opened: false });
  const [deliveries, setDeliveries] = useState<Deliveries>({ webhook: null, opened: false });
  const { kind } = scope;

  // A page left empty (its last webhook deleted): go to the last one (state adjusted while rendering).
  const lastPage = webhooks.data ? Math.max(1, Math.ceil(webhooks.data.total / webhooks.data.pageSize)) : 1;
  const pastTheEnd = webhooks.data !== undefined && !webhooks.isPlaceholderData && webhooks.data.items.length === 0 && page > lastPage;
  if (pastTheEnd) setPage(lastPage);

  // The deliveries dialog follows the list: a webhook turned off there shows as off in it.
  const shownDeliveries = deliveries.webhook && (webhooks.data?.items.find((webhook) => webhook.id === deliveries.webhook!.id) ?? deliveries.webhook);

  const setEnabled = (webhook: Webhook, enabled: boolean) =>
    update.mutate(
      { id: webhook.id, data: { enabled } },
      {
        onSuccess: () =>
          notify.success(`webhook.toggle:${webhook.id}`, t(enabled ? 'webhooks.toggle.enabled' : 'webhooks.toggle.disabled', { url: webhook.url })),
        onError: (error) => notify.failure(`webhook.toggle:${webhook.id}`, t('webhooks.toggle.failed'), errorMessage(error, t)),
      },
    );

  const askDisable = (webhook: Webhook) => confirmDisableWebhook(webhook, t, () => setEnabled(webhook, false));

  const askDelete = (webhook: Webhook) =>
    confirmDeleteWebhook(webhook, t, () =>
      remove.mutate(webhook.id, {
        onSuccess: () => notify.success(`webhook.delete:${webhook.id}`, t('webhooks.delete.success', { url: webhook.url })),
        onError: (error) => notify.failure(`webhook.delete:${webhook.id}`, t('webhooks.delete.failed'), errorMessage(error, t)),
      }),
    );

  const askRotate = (webhook: Webhook) =>
    confirmRotateWebhookSecret(webhook, t, (expirePrevious) =>
      rotate.mutate(
        { id: webhook.id, expirePrevious },
        {
          onSuccess: (rotated) => {
            // The secret stays with the dialog only, not in the mutation's cache.
            rotate.reset();
            setSecret({ webhook: rotated, rotated: true, previousExpired: expirePrevious, opened: true });
          },
          onError: (error) => notify.failure(`webhook.rotate:${webhook.id}`, t('webhooks.rotate.failed'), errorMessage(error, t)),
        },
      ),
    );

  const sendTest = (webhook: Webhook) =>
    test.mutate(webhook.id, {
      onSuccess: () => notify.success(`webhook.test:${webhook.id}`, t('webhooks.test.success', { url: webhook.url })),
      onError: (error) => notify.failure(`webhook.test:${webhook.id}`, t('webhooks.test.failed'), errorMessage(error, t)),
    });

  const failingAlerts = (webhooks.data?.items ?? []).filter(turnedOffFailing).map((webhook) => (
    <Alert
      key={webhook.id}
      color="red"
      variant="light"
      icon={<IconAlertOctagon aria-hidden />}
      title={t('webhooks.failing.title')}
      data-testid="webhook-failing-alert"
    >
      <Stack gap="sm" align="flex-start">
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {webhook.failingSince
            ? t('webhooks.failing.body', { url: webhook.url, date: format.date(webhook.failingSince) })
            : t('webhooks.failing.bodyNoDate', { url: webhook.url })}
        </Text>
        <Group gap="sm">
          <Button
            size="xs"
            color="red"
            leftSection={<IconPlayerPlay size={14} aria-hidden />}
            onClick={() => setEnabled(webhook, true)}
            loading={update.isPending && update.variables?.id === webhook.id}
          >
            {t('webhooks.failing.enable')}
          </Button>
          <Button size="xs" variant="white" color="red" onClick={() => setDeliveries({ webhook, opened: true })}>
            {t('webhooks.failing.deliveries')}
          </Button>
        </Group>
      </Stack>
    </Alert>
  ));

  const body = () => {
    if (webhooks.isPending) return <TableSkeleton rows={2} />;
    if (webhooks.isError) return <QueryError error={webhooks.error} onRetry={() => void webhooks.refetch()} retrying={webhooks.isFetching} />;
    const { items, total, pageSize } = webhooks.data;
    if (items.length === 0) {
      return <EmptyMessage icon={<IconWebhook size={32} aria-hidden />} title={t(`webhooks.${kind}.empty`)} description={t(`webhooks.${kind}.emptyHint`)} />;
    }
    return (
      <Stack gap="md">
        <StackedTable verticalSpacing="sm" aria-busy={webhooks.isPlaceholderData} className={classes.webhooks}>
          <VisuallyHidden component="caption">{t(`webhooks.${kind}.caption`)}</VisuallyHidden>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('webhooks.fields.endpoint')}</Table.Th>
              <Table.Th scope="col">{t('webhooks.fields.events')}</Table.Th>
              <Table.Th scope="col">{t('webhooks.fields.status')}</Table.Th>
              <Table.Th scope="col">{t('webhooks.fields.createdAt')}</Table.Th>
              <Table.Th scope="col">
                <VisuallyHidden>{t('common.actions')}</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((webhook) => (
              <Table.Tr key={webhook.id} data-testid="webhook-row">
                <Table.Td data-title>
                  <Text size="sm" fw={500} className={classes.url} data-testid="webhook-url">
                    {webhook.url}
                  </Text>
                  {webhook.description && (
                    <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                      {webhook.description}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td data-label={t('webhooks.fields.events')}>
                  <EventBadges events={webhook.events} />
                </Table.Td>
                <Table.Td data-label={t('webhooks.fields.status')}>
                  <Stack gap={2} align="flex-start">
                    <WebhookStatusBadge webhook={webhook} />
                    {webhook.enabled && webhook.failingSince && (
                      <Text size="xs" c="dimmed">
                        {t('webhooks.failingSince', { date: format.dateTime(webhook.failingSince) })}
                      </Text>
                    )}
                  </Stack>
                </Table.Td>
                <Table.Td data-label={t('webhooks.fields.createdAt')} className={classes.date}>
                  {format.date(webhook.createdAt)}
                </Table.Td>
                <Table.Td ta="end" data-actions>
                  <Group gap={4} wrap="nowrap" justify="flex-end">
                    <Button
                      variant="subtle"
                      size="xs"
                      leftSection={<IconListDetails size={14} aria-hidden />}
                      aria-label={t('webhooks.actions.deliveriesFor', { url: webhook.url })}
                      onClick={() => setDeliveries({ webhook, opened: true })}
                    >
                      {t('webhooks.actions.deliveries')}
                    </Button>
                    <Menu position="bottom-end" withinPortal>
                      <Menu.Target>
                        <ActionIcon variant="subtle" color="gray" aria-label={t('webhooks.actions.label', { url: webhook.url })}>
                          <IconDots size={18} aria-hidden />
                        </ActionIcon>
                      </Menu.Target>
                      <Menu.Dropdown>
                        <Menu.Item leftSection={<IconPencil size={16} aria-hidden />} onClick={() => setEditing({ webhook, opened: true })}>
                          {t('webhooks.actions.edit')}
                        </Menu.Item>
                        <Menu.Item leftSection={<IconSend size={16} aria-hidden />} onClick={() => sendTest(webhook)} disabled={!webhook.enabled}>
                          {t('webhooks.actions.test')}
                        </Menu.Item>
                        {webhook.enabled ? (
                          <Menu.Item leftSection={<IconPlayerPause size={16} aria-hidden />} onClick={() => askDisable(webhook)}>
                            {t('webhooks.actions.disable')}
                          </Menu.Item>
                        ) : (
                          <Menu.Item leftSection={<IconPlayerPlay size={16} aria-hidden />} onClick={() => setEnabled(webhook, true)}>
                            {t('webhooks.actions.enable')}
                          </Menu.Item>
                        )}
                        <Menu.Item leftSection={<IconKey size={16} aria-hidden />} onClick={() => askRotate(webhook)}>
                          {t('webhooks.actions.rotate')}
                        </Menu.Item>
                        <Menu.Divider />
                        <Menu.Item color="red" leftSection={<IconTrash size={16} aria-hidden />} onClick={() => askDelete(webhook)}>
                          {t('webhooks.actions.delete')}
                        </Menu.Item>
                      </Menu.Dropdown>
                    </Menu>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </StackedTable>
        <ListPagination page={page} pageSize={pageSize} total={total} onChange={setPage} label={t(`webhooks.${kind}.pages`)} />
      </Stack>
    );
  };

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby={headingId}>
      <Stack gap="md">
        <Group justify="space-between" gap="sm">
          <Group gap="sm">
            <Title order={2} fz="lg" id={headingId}>
              {t(`webhooks.${kind}.listTitle`)}
            </Title>
            {webhooks.isFetching && !webhooks.isPending && <Loader size="xs" role="status" aria-label={t('app.loading')} />}
          </Group>
          <Button leftSection={<IconPlus size={18} aria-hidden />} onClick={() => setEditing({ webhook: null, opened: true })}>
            {t('webhooks.create')}
          </Button>
        </Group>
        <Text size="sm" c="dimmed">
          {t(`webhooks.${kind}.description`)}
        </Text>
        {failingAlerts}
        {body()}
      </Stack>
      <WebhookFormDialog
        scope={scope}
        webhook={editing.webhook}
        opened={editing.opened}
        onClose={() => setEditing((current) => ({ ...current, opened: false }))}
        onCreated={(made) => {
          setEditing((current) => ({ ...current, opened: false }));
          setSecret({ webhook: made, rotated: false, previousExpired: false, opened: true });
        }}
      />
      <WebhookSecretDialog
        webhook={secret.webhook}
        rotated={secret.rotated}
        previousExpired={secret.previousExpired}
        opened={secret.opened}
        onClose={() => setSecret((current) => ({ ...current, opened: false }))}
        onClosed={() => setSecret({ webhook: null, rotated: false, previousExpired: false, opened: false })}
      />
      <WebhookDeliveriesDialog
        webhook={shownDeliveries}
        opened={deliveries.opened}
        onClose={() => setDeliveries((current) => ({ ...current, opened: false }))}
      />
    </Card>
  );
}
