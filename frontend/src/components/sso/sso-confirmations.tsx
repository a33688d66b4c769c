import { Text } from '@mantine/core';
import { openConfirmModal } from '@mantine/modals';
import type { TFunction } from 'i18next';

/** Asks before removing an enterprise's single sign-on: its domains' people go back to passwords. */
export function confirmRemoveSso(domains: readonly string[], t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('ssoSettings.removeTitle'),
    children: (
      <Text size="sm" style={{ overflowWrap: 'anywhere' }} data-testid="remove-sso-confirmation">
        {t('ssoSettings.removeBody', { domains: domains.join(', ') })}
      </Text>
    ),
    labels: { confirm: t('ssoSettings.removeConfirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'red' },
    onConfirm,
  });
}
