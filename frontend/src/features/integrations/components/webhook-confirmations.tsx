import { Checkbox, Stack, Text } from '@mantine/core';
import { useState } from 'react';
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

/**
 * The rotation's question: the receiver has a day to take the new secret, unless the current one
 * leaked, in which case it can stop signing at once.
 */
function RotateConfirmation({ url, t, onExpireChange }: { url: string; t: TFunction; onExpireChange: (expire: boolean) => void }) {
  const [expire, setExpire] = useState(false);
  return (
    <Stack gap="sm" data-testid="rotate-webhook-confirmation">
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {expire ? t('webhooks.rotate.bodyExpireNow', { url }) : t('webhooks.rotate.body', { url })}
      </Text>
      <Checkbox
        checked={expire}
        onChange={(event) => {
          setExpire(event.currentTarget.checked);
          onExpireChange(event.currentTarget.checked);
        }}
        label={t('webhooks.rotate.expireNow')}
        description={t('webhooks.rotate.expireNowHint')}
      />
    </Stack>
  );
}

/** Asks before rotating a webhook's secret, and whether the current one stops signing at once. */
export function confirmRotateWebhookSecret(webhook: Pick<Webhook, 'url'>, t: TFunction, onConfirm: (expirePrevious: boolean) => void) {
  let expirePrevious = false;
  openConfirmModal({
    title: t('webhooks.rotate.title'),
    children: <RotateConfirmation url={webhook.url} t={t} onExpireChange={(expire) => (expirePrevious = expire)} />,
    labels: { confirm: t('webhooks.rotate.confirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'orange' },
    onConfirm: () => onConfirm(expirePrevious),
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
