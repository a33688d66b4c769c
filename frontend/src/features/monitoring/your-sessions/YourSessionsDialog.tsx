import { Badge, Button, Card, Group, Modal, Stack, Text } from '@mantine/core';
import { IconDeviceDesktop, IconDeviceMobile, IconLogout } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Session } from '@/api/generated/model';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { type Notice, InlineNotice } from '@/components/forms/InlineNotice';
import { QueryError } from '@/components/data/QueryError';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { errorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import { useLogoutMySessionMutation, useMySessions } from '../api';
import { useSessionFormat } from '../session-format';

/** The most sessions the panel lists (the API's largest page), live ones only. */
const LIMIT = 100;

type YourSessionsDialogProps = {
  opened: boolean;
  onClose: () => void;
  /** Ending this browser's own session is signing out: the usual way, so that this tab cleans up too. */
  onSignOut: () => void;
  signingOut: boolean;
};

/**
 * "Your sessions", from the user menu: where the caller is signed in (device, place, last seen),
 * this browser's session marked, and a way to end any of them.
 */
export default function YourSessionsDialog({ opened, onClose, onSignOut, signingOut }: YourSessionsDialogProps) {
  const { t } = useTranslation();
  const sessions = useMySessions({ active: true, page: 1, pageSize: LIMIT }, opened);
  // What ending a session came to; each opening starts without it (state adjusted while rendering).
  const [notice, setNotice] = useState<Notice | null>(null);
  const [seenOpened, setSeenOpened] = useState(opened);
  if (opened !== seenOpened) {
    setSeenOpened(opened);
    if (opened) setNotice(null);
  }

  const body = () => {
    if (sessions.isPending) return <TableSkeleton rows={2} />;
    if (sessions.isError) return <QueryError error={sessions.error} onRetry={() => void sessions.refetch()} retrying={sessions.isFetching} />;
    const { items, total } = sessions.data;
    if (items.length === 0) return <EmptyMessage title={t('yourSessions.empty')} />;
    // This browser's session first, then the most recently active.
    const ordered = [...items].sort((a, b) => Number(b.current) - Number(a.current));
    return (
      <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }} aria-label={t('yourSessions.listLabel')}>
        {ordered.map((session) => (
          <SessionEntry key={session.id} session={session} onSignOut={onSignOut} signingOut={signingOut} onOutcome={setNotice} />
        ))}
        {total > items.length && (
          <Text component="li" size="sm" c="dimmed">
            {t('yourSessions.more', { count: total - items.length })}
          </Text>
        )}
      </Stack>
    );
  };

  return (
    <Modal opened={opened} onClose={onClose} title={t('yourSessions.title')} size="lg" closeButtonProps={{ 'aria-label': t('common.close') }}>
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          {t('yourSessions.description')}
        </Text>
        <InlineNotice notice={notice} onClose={() => setNotice(null)} />
        {body()}
      </Stack>
    </Modal>
  );
}

type SessionEntryProps = { session: Session; onSignOut: () => void; signingOut: boolean; onOutcome: (notice: Notice | null) => void };

function SessionEntry({ session, onSignOut, signingOut, onOutcome }: SessionEntryProps) {
  const { t } = useTranslation();
  const format = useFormat();
  const sessionFormat = useSessionFormat();
  const end = useLogoutMySessionMutation();
  const device = sessionFormat.device(session);
  const place = sessionFormat.place(session);
  const signInMethod = sessionFormat.signInMethod(session.signInMethod);
  const DeviceIcon = session.deviceType === 'mobile' ? IconDeviceMobile : IconDeviceDesktop;

  // Said in the dialog, which lies over the toasts.
  const endIt = () => {
    onOutcome(null);
    end.mutate(
      { id: session.id },
      {
        onSuccess: () => onOutcome({ success: true, message: t('yourSessions.ended', { device, place }) }),
        onError: (error) => onOutcome({ title: t('yourSessions.failed'), message: errorMessage(error, t) }),
      },
    );
  };

  return (
    <Card component="li" withBorder radius="md" padding="sm" data-testid="your-session">
      <Group justify="space-between" align="center" wrap="nowrap" gap="sm">
        <Group gap="sm" wrap="nowrap" align="flex-start" style={{ minWidth: 0 }}>
          <DeviceIcon size={24} aria-hidden style={{ flex: 'none', marginTop: 2 }} />
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Group gap="xs">
              <Text size="sm" fw={600}>
                {device}
              </Text>
              {session.current && (
                <Badge color="blue" variant="light" style={{ textTransform: 'none' }} data-testid="current-session">
                  {t('yourSessions.thisDevice')}
                </Badge>
              )}
            </Group>
            <Text size="sm">{place}</Text>
            <Text size="xs" c="dimmed">
              {t('yourSessions.lastSeen', { when: format.dateTime(session.lastSeenAt) })} ·{' '}
              {t('yourSessions.signedIn', { when: format.dateTime(session.createdAt) })}
              {signInMethod && ` · ${signInMethod}`}
            </Text>
          </Stack>
        </Group>
        {session.current ? (
          <Button
            variant="light"
            color="red"
            size="xs"
            leftSection={<IconLogout size={14} aria-hidden />}
            onClick={onSignOut}
            loading={signingOut}
            style={{ flex: 'none' }}
          >
            {t('yourSessions.signOut')}
          </Button>
        ) : (
          <Button
            variant="light"
            color="red"
            size="xs"
            onClick={endIt}
            loading={end.isPending}
            aria-label={t('yourSessions.endLabel', { device, place })}
            style={{ flex: 'none' }}
          >
            {t('yourSessions.end')}
          </Button>
        )}
      </Group>
    </Card>
  );
}
