import { List, Stack, Text } from '@mantine/core';
import { modals, openConfirmModal } from '@mantine/modals';
import type { TFunction } from 'i18next';
import type { Erasure, User } from '@/api/generated/model';

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

/** What an erasure removes and keeps, by the server's codes (`POST /users/{id}/erasure`). */
const ERASURE_REMOVES = ['name', 'email', 'password', 'sessions', 'api_tokens', 'passkeys', 'authenticator', 'messages', 'messenger_keys'] as const;
const ERASURE_KEEPS = ['reports', 'reviews', 'spreadsheets', 'audit_entries'] as const;

const itemText = (code: string, t: TFunction) => t(`users.erase.items.${code}`, { defaultValue: code });

/** Asks before erasing a person's data: names them, says what goes and what stays under a pseudonym, and that it is final. */
export function confirmEraseUser(user: Pick<User, 'fullName'>, t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('users.erase.title'),
    children: (
      <Stack gap="xs" data-testid="erase-user-confirmation">
        <Text size="sm">{t('users.erase.question', { name: user.fullName })}</Text>
        <Text size="sm">{t('users.erase.removes')}</Text>
        <List size="sm" withPadding>
          {ERASURE_REMOVES.map((code) => (
            <List.Item key={code}>{itemText(code, t)}</List.Item>
          ))}
        </List>
        <Text size="sm">{t('users.erase.keeps')}</Text>
        <List size="sm" withPadding>
          {ERASURE_KEEPS.map((code) => (
            <List.Item key={code}>{itemText(code, t)}</List.Item>
          ))}
        </List>
        <Text size="sm" fw={600}>
          {t('users.erase.irreversible')}
        </Text>
      </Stack>
    ),
    labels: { confirm: t('users.erase.confirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'red' },
    onConfirm,
  });
}

/** What the server says it removed and kept, in the interface language. */
export function showErasure(name: string, erasure: Erasure, t: TFunction) {
  modals.open({
    title: t('users.erase.resultTitle'),
    children: (
      <Stack gap="xs" data-testid="erasure-result">
        <Text size="sm">{t('users.erase.result', { name })}</Text>
        <Text size="sm" fw={600}>
          {t('users.erase.removed')}
        </Text>
        <List size="sm" withPadding>
          {erasure.removed.map((code) => (
            <List.Item key={code}>{itemText(code, t)}</List.Item>
          ))}
        </List>
        <Text size="sm" fw={600}>
          {t('users.erase.kept')}
        </Text>
        <List size="sm" withPadding>
          {erasure.kept.map((code) => (
            <List.Item key={code}>{itemText(code, t)}</List.Item>
          ))}
        </List>
      </Stack>
    ),
  });
}
