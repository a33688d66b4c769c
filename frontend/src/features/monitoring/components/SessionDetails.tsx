import { Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Session } from '@/api/generated/model';
import { useFormat } from '@/lib/format';
import { useSessionFormat } from '../session-format';
import { FlagBadges, SessionStateBadge } from './SessionBadges';

/** What the map's popup says about a session: who, where, on what, since when, and its flags. */
export function SessionDetails({ session }: { session: Session }) {
  const { t } = useTranslation();
  const format = useFormat();
  const sessionFormat = useSessionFormat();
  const rows: [string, ReactNode][] = [
    [t('monitoring.fields.city'), session.city || '—'],
    [t('monitoring.fields.country'), session.country ? sessionFormat.country(session.country) : '—'],
    [t('monitoring.fields.device'), sessionFormat.device(session)],
    [t('monitoring.fields.started'), format.dateTime(session.createdAt)],
    [t('monitoring.fields.signInMethod'), sessionFormat.signInMethod(session.signInMethod) ?? '—'],
    [t('monitoring.fields.lastSeen'), format.dateTime(session.lastSeenAt)],
  ];
  return (
    <Stack gap={6} miw={220} data-testid="session-details">
      <div>
        <Text fw={600} size="sm">
          {session.user.fullName}
        </Text>
        <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {session.user.email}
        </Text>
      </div>
      <dl style={{ margin: 0, display: 'grid', gridTemplateColumns: 'auto 1fr', columnGap: 12, rowGap: 2 }}>
        {rows.map(([label, value]) => (
          <div key={label} style={{ display: 'contents' }}>
            <Text component="dt" size="xs" c="dimmed">
              {label}
            </Text>
            <Text component="dd" size="xs" m={0}>
              {value}
            </Text>
          </div>
        ))}
      </dl>
      <SessionStateBadge session={session} />
      <FlagBadges flags={session.flags} />
    </Stack>
  );
}
