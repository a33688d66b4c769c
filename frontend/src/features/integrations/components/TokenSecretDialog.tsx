import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { CopyableCode } from '@/components/CopyableCode';
import type { CreatedApiToken } from '@/api/generated/model';
import { useFormat } from '@/lib/format';

type TokenSecretDialogProps = {
  /** The token just made; its secret is shown here and nowhere else. */
  token: CreatedApiToken | null;
  opened: boolean;
  /** A read the new token may make, to try it with (`/api/v1/auth/me`); none to show no example. */
  examplePath: string | null;
  onClose: () => void;
  /** Once the dialog has closed: the caller forgets the secret. */
  onClosed: () => void;
};

/**
 * The secret of a new token, shown this once (the server keeps only its hash), with a way to
 * copy it and a request to try it with. A click beside the dialog does not close it: only the
 * buttons and Escape do.
 */
export function TokenSecretDialog({ token, opened, examplePath, onClose, onClosed }: TokenSecretDialogProps) {
  const { t } = useTranslation();
  const format = useFormat();
  const example = token && examplePath ? `curl -H "Authorization: Bearer ${token.token}" ${window.location.origin}${examplePath}` : null;

  return (
    <Modal opened={opened} onClose={onClose} onExitTransitionEnd={onClosed} title={t('apiTokens.secret.title')} size="lg" closeOnClickOutside={false}>
      {token && (
        <Stack gap="md">
          <Alert color="yellow" variant="light" icon={<IconAlertTriangle aria-hidden />} title={t('apiTokens.secret.warningTitle')}>
            {t('apiTokens.secret.warning')}
          </Alert>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            <Text span fw={600}>
              {token.name}
            </Text>
            {' · '}
            {t('apiTokens.form.until', { date: format.date(token.expiresAt) })}
          </Text>
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              {t('apiTokens.secret.label')}
            </Text>
            <CopyableCode value={token.token} copyLabel={t('apiTokens.secret.copy')} copiedLabel={t('apiTokens.secret.copied')} testId="token-secret" />
          </Stack>
          {example && (
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                {t('apiTokens.secret.example')}
              </Text>
              <CopyableCode value={example} copyLabel={t('apiTokens.secret.copyExample')} copiedLabel={t('apiTokens.secret.copied')} testId="token-example" />
            </Stack>
          )}
          <Group justify="flex-end">
            <Button onClick={onClose}>{t('apiTokens.secret.done')}</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
