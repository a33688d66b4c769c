import { Stack, Text } from '@mantine/core';
import { openConfirmModal } from '@mantine/modals';
import type { TFunction } from 'i18next';
import type { ApiToken } from '@/api/generated/model';

/** Asks before revoking a token: names it, and says that it is final and works at once. */
export function confirmRevokeToken(token: Pick<ApiToken, 'name' | 'prefix'>, t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('apiTokens.revoke.title'),
    children: (
      <Stack gap="xs" data-testid="revoke-token-confirmation">
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {t('apiTokens.revoke.body', { name: token.name, prefix: token.prefix })}
        </Text>
        <Text size="sm" fw={600}>
          {t('apiTokens.revoke.irreversible')}
        </Text>
      </Stack>
    ),
    labels: { confirm: t('apiTokens.revoke.confirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'red' },
    onConfirm,
  });
}
