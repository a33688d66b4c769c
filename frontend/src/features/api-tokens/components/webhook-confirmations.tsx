import { Stack, Text } from '@mantine/core';
import { openConfirmModal } from '@mantine/modals';
import type { TFunction } from 'i18next';
import type { Webhook } from '@/api/generated/model';

/** Asks before deleting a webhook: names its address, and says that it is final. */
export function confirmDeleteWebhook(webhook: Pick<Webhook, 'url'>, t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('webhooks.delete.title'),
    children: (
      <Stack gap="xs" data-testid="delete-webhook-confirmation">
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {t('webhooks.delete.body', { url: webhook.url })}
        </Text>
        <Text size="sm" fw={600}>
          {t('webhooks.delete.irreversible')}
        </Text>
      </Stack>
    ),
    labels: { confirm: t('webhooks.delete.confirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'red' },
    onConfirm,
  });
}

/** Asks before rotating a webhook's secret: the receiver has a day to take the new one. */
export function confirmRotateWebhookSecret(webhook: Pick<Webhook, 'url'>, t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('webhooks.rotate.title'),
    children: (
      <Text size="sm" style={{ overflowWrap: 'anywhere' }} data-testid="rotate-webhook-confirmation">
        {t('webhooks.rotate.body', { url: webhook.url })}
      </Text>
    ),
    labels: { confirm: t('webhooks.rotate.confirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'orange' },
    onConfirm,
  });
}

/** Asks before turning a webhook off: what is still waiting to be sent is given up. */
export function confirmDisableWebhook(webhook: Pick<Webhook, 'url'>, t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('webhooks.toggle.disableTitle'),
    children: (
      <Text size="sm" style={{ overflowWrap: 'anywhere' }} data-testid="disable-webhook-confirmation">
        {t('webhooks.toggle.disableBody', { url: webhook.url })}
      </Text>
    ),
    labels: { confirm: t('webhooks.toggle.disableConfirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'orange' },
    onConfirm,
  });
}
