import { Stack, Text } from '@mantine/core';
import { openConfirmModal } from '@mantine/modals';
import type { TFunction } from 'i18next';
import type { Session } from '@/api/generated/model';

/** How a confirmation names the session: its device and place, already in the interface language. */
export type SessionLabel = { device: string; place: string };

/** Asks before logging a session out, naming its user, device and place. */
export function confirmLogoutSession(session: Session, label: SessionLabel, t: TFunction, onConfirm: () => void) {
  const { fullName: name, email } = session.user;
  openConfirmModal({
    title: t('monitoring.logout.title'),
    children: (
      <Stack gap="xs" data-testid="logout-session-confirmation">
        <Text size="sm">{t('monitoring.logout.question', { name, email, device: label.device, place: label.place })}</Text>
        <Text size="sm">{t('monitoring.logout.consequence', { name })}</Text>
      </Stack>
    ),
    labels: { confirm: t('monitoring.logout.confirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'red' },
    onConfirm,
  });
}

/** Asks before logging out every other session of that session's user; this one stays. */
export function confirmLogoutOtherSessions(session: Session, label: SessionLabel, t: TFunction, onConfirm: () => void) {
  const { fullName: name, email } = session.user;
  openConfirmModal({
    title: t('monitoring.logoutOthers.title'),
    children: (
      <Stack gap="xs" data-testid="logout-others-confirmation">
        <Text size="sm">{t('monitoring.logoutOthers.question', { name, email })}</Text>
        <Text size="sm">{t('monitoring.logoutOthers.kept', { device: label.device, place: label.place })}</Text>
      </Stack>
    ),
    labels: { confirm: t('monitoring.logoutOthers.confirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'red' },
    onConfirm,
  });
}
