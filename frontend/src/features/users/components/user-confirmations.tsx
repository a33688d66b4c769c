import { Stack, Text } from '@mantine/core';
import { openConfirmModal } from '@mantine/modals';
import type { TFunction } from 'i18next';
import type { User } from '@/api/generated/model';

/** Asks before deleting an account: names it and says it is final (SPEC §8). */
export function confirmDeleteUser(user: Pick<User, 'fullName' | 'email'>, t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('users.delete.title'),
    children: (
      <Stack gap="xs" data-testid="delete-user-confirmation">
        <Text size="sm">{t('users.delete.question', { name: user.fullName, email: user.email })}</Text>
        <Text size="sm" fw={600}>
          {t('users.delete.irreversible')}
        </Text>
      </Stack>
    ),
    labels: { confirm: t('users.delete.confirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'red' },
    onConfirm,
  });
}

/** Asks before deactivating: the person is signed out at once. */
export function confirmDeactivateUser(user: Pick<User, 'fullName'>, t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('users.deactivate.title'),
    children: <Text size="sm">{t('users.deactivate.body', { name: user.fullName })}</Text>,
    labels: { confirm: t('users.deactivate.confirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'orange' },
    onConfirm,
  });
}

/** Asks before removing someone's authenticator and recovery codes: their sessions end too. */
export function confirmResetMfa(user: Pick<User, 'fullName' | 'email'>, t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('users.mfa.resetTitle'),
    children: (
      <Stack gap="xs" data-testid="reset-mfa-confirmation">
        <Text size="sm">{t('users.mfa.resetQuestion', { name: user.fullName, email: user.email })}</Text>
        <Text size="sm">{t('users.mfa.resetSessions')}</Text>
      </Stack>
    ),
    labels: { confirm: t('users.mfa.resetConfirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'orange' },
    onConfirm,
  });
}
