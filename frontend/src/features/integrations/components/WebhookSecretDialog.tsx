import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { WebhookWithSecret } from '@/api/generated/model';
import { CopyableCode } from '@/components/CopyableCode';

type WebhookSecretDialogProps = {
  /** The webhook just made, or whose secret was just rotated; its secret is shown here and nowhere else. */
  webhook: WebhookWithSecret | null;
  /** A rotation: the previous secret still signs for a day (or stopped at once), which the dialog says. */
  rotated: boolean;
  /** The rotation stopped the previous secret at once. */
  previousExpired?: boolean;
  opened: boolean;
  onClose: () => void;
  /** Once the dialog has closed: the caller forgets the secret. */
  onClosed: () => void;
};

/**
 * A webhook's signing secret, shown this once, with a way to copy it (as a new token's is). A
 * click beside the dialog does not close it: only the button and Escape do.
 */
export function WebhookSecretDialog({ webhook, rotated, previousExpired = false, opened, onClose, onClosed }: WebhookSecretDialogProps) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      onExitTransitionEnd={onClosed}
      title={rotated ? t('webhooks.secret.rotatedTitle') : t('webhooks.secret.title')}
      size="lg"
      closeOnClickOutside={false}
    >
      {webhook && (
        <Stack gap="md">
          <Alert color="yellow" variant="light" icon={<IconAlertTriangle aria-hidden />} title={t('webhooks.secret.warningTitle')}>
            {t('webhooks.secret.warning')}
          </Alert>
          <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }} data-testid="webhook-secret-url">
            {webhook.url}
          </Text>
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              {t('webhooks.secret.label')}
            </Text>
            <CopyableCode value={webhook.secret} copyLabel={t('webhooks.secret.copy')} copiedLabel={t('apiTokens.secret.copied')} testId="webhook-secret" />
          </Stack>
          <Text size="sm" c="dimmed">
            {t('webhooks.secret.verify')}
          </Text>
          {rotated && <Text size="sm">{previousExpired ? t('webhooks.secret.previousExpired') : t('webhooks.secret.previous')}</Text>}
          <Group justify="flex-end">
            <Button onClick={onClose}>{t('webhooks.secret.done')}</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
