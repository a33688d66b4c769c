import { ActionIcon, Menu, Table, Text, VisuallyHidden } from '@mantine/core';
import { IconDots, IconFilter, IconLogout, IconLogout2 } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Session } from '@/api/generated/model';
import { EnterpriseName } from '@/components/enterprises/EnterpriseName';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notify';
import { useLogoutOtherSessionsMutation, useLogoutSessionMutation } from '../api';
import { useSessionFormat } from '../session-format';
import { CurrentSessionBadge, FlagBadges, SessionStateBadge } from './SessionBadges';
import { SessionDateTime, SessionEmail } from './SessionCells';
import { confirmLogoutOtherSessions, confirmLogoutSession } from './session-confirmations';

type SessionsTableProps = {
  sessions: Session[];
  /** The platform admin sees every enterprise: a column names each session's. */
  showEnterprise: boolean;
  enterpriseNames: ReadonlyMap<string, string>;
  /** Narrows the screen to one user's sessions. */
  onShowUser: (userId: string) => void;
  busy?: boolean;
};

/** The sessions, one per row: the accessible equivalent of the map, with the actions on each. */
export function SessionsTable({ sessions, showEnterprise, enterpriseNames, onShowUser, busy = false }: SessionsTableProps) {
  const { t } = useTranslation();
  const sessionFormat = useSessionFormat();
  const logout = useLogoutSessionMutation();
  const logoutOthers = useLogoutOtherSessionsMutation();

  const labelOf = (session: Session) => ({ device: sessionFormat.device(session), place: sessionFormat.place(session) });

  const askLogout = (session: Session) =>
    confirmLogoutSession(session, labelOf(session), t, () =>
      // From the request's promise, not mutate()'s callbacks: the session's end can empty the
      // table (its live update, the refetch) before the answer comes, and react-query drops the
      // callbacks of a component that has gone.
      logout.mutateAsync({ id: session.id }).then(
        () => notify.success(`session.logout:${session.id}`, t('monitoring.logout.success', { name: session.user.fullName })),
        (error: unknown) => notify.failure(`session.logout:${session.id}`, t('monitoring.logout.failed'), errorMessage(error, t)),
      ),
    );

  const askLogoutOthers = (session: Session) =>
    confirmLogoutOtherSessions(session, labelOf(session), t, () =>
      logoutOthers.mutateAsync({ id: session.id }).then(
        () => notify.success(`session.logoutOthers:${session.id}`, t('monitoring.logoutOthers.success', { name: session.user.fullName })),
        (error: unknown) => notify.failure(`session.logoutOthers:${session.id}`, t('monitoring.logoutOthers.failed'), errorMessage(error, t)),
      ),
    );

  return (
    // Whole at a laptop's width beside the sidebar (about 920 px of card at 1280 px): the columns
    // wrap their texts instead; only a phone scrolls the table sideways.
    <Table.ScrollContainer minWidth={showEnterprise ? 800 : 720}>
      <Table highlightOnHover verticalSpacing="sm" horizontalSpacing={6} aria-busy={busy}>
        <VisuallyHidden component="caption">{t('monitoring.sessions.caption')}</VisuallyHidden>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t('monitoring.fields.user')}</Table.Th>
            {showEnterprise && <Table.Th scope="col">{t('monitoring.fields.enterprise')}</Table.Th>}
            <Table.Th scope="col">{t('monitoring.fields.place')}</Table.Th>
            <Table.Th scope="col">{t('monitoring.fields.device')}</Table.Th>
            {/* The dates, the flags and the menu are as narrow as their content lets them be
                (width 1% is the table's "shrink to fit"): the room they kept empty goes to the
                columns whose text wraps (an address, a place, the sign-in method). */}
            <Table.Th scope="col" w="1%">
              {t('monitoring.fields.started')}
            </Table.Th>
            <Table.Th scope="col" w="1%">
              {t('monitoring.fields.lastSeen')}
            </Table.Th>
            <Table.Th scope="col">{t('monitoring.fields.state')}</Table.Th>
            <Table.Th scope="col" w="1%">
              {t('monitoring.fields.flags')}
            </Table.Th>
            <Table.Th scope="col" w="1%">
              <VisuallyHidden>{t('common.actions')}</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {sessions.map((session) => {
            // The kind of device, under what the browser says (alone, it is already the device's name).
            const deviceType = session.browser || session.os ? sessionFormat.deviceType(session.deviceType) : null;
            const signInMethod = sessionFormat.signInMethod(session.signInMethod);
            return (
              <Table.Tr key={session.id} data-testid="session-row">
                <Table.Td>
                  <Text size="sm" fw={500}>
                    {session.user.fullName}
                  </Text>
                  <Text size="xs" c="dimmed">
                    <SessionEmail email={session.user.email} />
                  </Text>
                  {session.current && <CurrentSessionBadge />}
                </Table.Td>
                {showEnterprise && (
                  <Table.Td>
                    <EnterpriseName id={session.enterpriseId} names={enterpriseNames} />
                  </Table.Td>
                )}
                <Table.Td>
                  <Text size="sm">{sessionFormat.place(session)}</Text>
                  {session.ipAddress && (
                    <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                      {session.ipAddress}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{sessionFormat.device(session)}</Text>
                  {deviceType && (
                    <Text size="xs" c="dimmed">
                      {deviceType}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <SessionDateTime value={session.createdAt} />
                </Table.Td>
                <Table.Td>
                  <SessionDateTime value={session.lastSeenAt} />
                </Table.Td>
                <Table.Td>
                  <SessionStateBadge session={session} />
                  {signInMethod && (
                    // How it was opened: a session's state as much as whether it is live.
                    <Text size="xs" c="dimmed" mt={4} data-testid="sign-in-method" title={t('monitoring.fields.signInMethod')}>
                      {signInMethod}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {session.flags.length > 0 ? (
                    <FlagBadges flags={session.flags} wrap />
                  ) : (
                    <Text span size="sm" c="dimmed">
                      {t('monitoring.flags.none')}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="end">
                  <Menu position="bottom-end" withinPortal>
                    <Menu.Target>
                      <ActionIcon
                        variant="subtle"
                        color="gray"
                        aria-label={t('monitoring.sessions.actionsFor', { name: session.user.fullName, device: sessionFormat.device(session) })}
                      >
                        <IconDots size={18} aria-hidden />
                      </ActionIcon>
                    </Menu.Target>
                    <Menu.Dropdown>
                      <Menu.Item leftSection={<IconFilter size={16} aria-hidden />} onClick={() => onShowUser(session.user.id)}>
                        {t('monitoring.sessions.showUser')}
                      </Menu.Item>
                      {session.active && (
                        <>
                          <Menu.Divider />
                          {!session.current && (
                            <Menu.Item color="red" leftSection={<IconLogout size={16} aria-hidden />} onClick={() => askLogout(session)}>
                              {t('monitoring.logout.action')}
                            </Menu.Item>
                          )}
                          <Menu.Item color="red" leftSection={<IconLogout2 size={16} aria-hidden />} onClick={() => askLogoutOthers(session)}>
                            {t('monitoring.logoutOthers.action')}
                          </Menu.Item>
                        </>
                      )}
                    </Menu.Dropdown>
                  </Menu>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
