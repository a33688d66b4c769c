import { Badge, Group, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Session } from '@/api/generated/model';
import { useSessionFormat } from '../session-format';

// Never cut a badge short (a narrow table column would truncate it).
const BADGE_STYLE = { textTransform: 'none', minWidth: 'max-content' } as const;

/** The anomaly flags, translated; nothing when there are none. */
export function FlagBadges({ flags }: { flags: readonly string[] }) {
  const format = useSessionFormat();
  if (flags.length === 0) return null;
  return (
    <Group gap={4} wrap="wrap">
      {flags.map((flag) => (
        <Badge key={flag} color="red" variant="light" style={BADGE_STYLE} leftSection={<IconAlertTriangle size={12} aria-hidden />} data-testid="session-flag">
          {format.flag(flag)}
        </Badge>
      ))}
    </Group>
  );
}

/** Active, or ended and why. */
export function SessionStateBadge({ session }: { session: Pick<Session, 'active' | 'endReason'> }) {
  const { t } = useTranslation();
  const format = useSessionFormat();
  if (session.active) {
    return (
      <Badge color="teal" variant="light" style={BADGE_STYLE}>
        {t('monitoring.state.active')}
      </Badge>
    );
  }
  const reason = format.endReason(session.endReason);
  return (
    <>
      <Badge color="gray" variant="light" style={BADGE_STYLE}>
        {t('monitoring.state.ended')}
      </Badge>
      {reason && (
        <Text size="xs" c="dimmed" mt={2}>
          {reason}
        </Text>
      )}
    </>
  );
}

/** Marks the caller's own session. */
export function CurrentSessionBadge() {
  const { t } = useTranslation();
  return (
    <Badge color="blue" variant="outline" style={BADGE_STYLE} data-testid="current-session">
      {t('monitoring.sessions.current')}
    </Badge>
  );
}
