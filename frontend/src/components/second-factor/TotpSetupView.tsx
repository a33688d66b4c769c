import { Code, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { TotpSetup } from '@/api/generated/model';
import { TotpQrCode } from './TotpQrCode';

/** "ABCD EFGH ...": the secret in groups of four, easier to type; apps ignore the spaces. */
export const groupedSecret = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

/** How to add a new authenticator: its QR code to scan, or its key to type in. */
export function TotpSetupView({ setup }: { setup: TotpSetup }) {
  const { t } = useTranslation();
  return (
    <Group align="flex-start" gap="lg" wrap="wrap">
      <TotpQrCode otpauthUrl={setup.otpauthUrl} />
      <Stack gap="xs" style={{ flex: '1 1 220px', minWidth: 0 }}>
        <Text size="sm">{t('twoStep.scan')}</Text>
        <Text size="sm">{t('twoStep.orType')}</Text>
        <Code
          block
          data-testid="totp-secret"
          data-secret={setup.secret}
          aria-label={t('twoStep.secretLabel')}
          // Lines break at the spaces between groups, never inside one ("OFLY M / YPY" was hard
          // to type): no break-all.
          style={{ whiteSpace: 'pre-wrap', wordBreak: 'normal', overflowWrap: 'normal', fontSize: 'var(--mantine-font-size-md)' }}
        >
          {groupedSecret(setup.secret)}
        </Code>
        <Text size="xs" c="dimmed">
          {t('twoStep.secretHint')}
        </Text>
      </Stack>
    </Group>
  );
}
