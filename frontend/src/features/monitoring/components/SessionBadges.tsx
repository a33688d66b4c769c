import { Badge, Group, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Session } from '@/api/generated/model';
import { useSessionFormat } from '../session-format';

// Never cut a badge short (a narrow table column would truncate it).
const BADGE_STYLE = { textTransform: 'none', minWidth: 'max-content' } as const;
// In a table's narrow column, a badge wraps between its words instead ("Impossible / travel").
const WRAPPING_BADGE = {
  root: { textTransform: 'none', height: 'auto', minHeight: 'var(--badge-height)', paddingBlock: 2, maxWidth: '100%' },
  label: { whiteSpace: 'normal', overflow: 'visible', textOverflow: 'clip', lineHeight: 1.3 },
} as const;

/** The anomaly flags, translated; nothing when there are none. `wrap`: each may take two lines. */
export function FlagBadges({ flags, wrap = false }: { flags: readonly string[]; wrap?: boolean }) {
  const format = useSessionFormat();
  if (flags.length === 0) return null;
  return (
    <Group gap={4} wrap="wrap">
      {flags.map((flag) => (
        <Badge
          key={flag}
          color="red"
          variant="light"
          {...(wrap ? { styles: WRAPPING_BADGE, radius: 'sm', size: 'sm' } : { style: BADGE_STYLE })}
          leftSection={<IconAlertTriangle size={12} aria-hidden />}
          data-testid="session-flag"
        >
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
