import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Enterprise, ReportStatus, Role, UserStatus } from '@/api/generated/model';
import { STATUS_COLORS } from '@/lib/report-rules';

// Never cut a badge short (a narrow table column would truncate it to "Acti…").
const BADGE_STYLE = { textTransform: 'none', minWidth: 'max-content' } as const;

const ROLE_COLORS: Record<Role, string> = {
  PlatformAdmin: 'grape',
  EnterpriseCeo: 'indigo',
  DepartmentHead: 'cyan',
  DepartmentUser: 'gray',
};

export function RoleBadge({ role }: { role: Role }) {
  const { t } = useTranslation();
  return (
    <Badge color={ROLE_COLORS[role]} variant="light" style={BADGE_STYLE}>
      {t(`roles.${role}`)}
    </Badge>
  );
}

/** A user's status. */
export function UserStatusBadge({ status }: { status: UserStatus }) {
  const { t } = useTranslation();
  return (
    <Badge color={status === 'active' ? 'teal' : 'gray'} variant="light" style={BADGE_STYLE}>
      {t(`userStatus.${status}`)}
    </Badge>
  );
}

/** A person whose data was erased: the account is a pseudonym. */
export function ErasedBadge() {
  const { t } = useTranslation();
  return (
    <Badge color="gray" variant="light" style={BADGE_STYLE}>
      {t('users.erased.badge')}
    </Badge>
  );
}

/** An enterprise's status. */
export function ActiveBadge({ active }: { active: boolean }) {
  const { t } = useTranslation();
  return (
    <Badge color={active ? 'teal' : 'gray'} variant="light" style={BADGE_STYLE}>
      {active ? t('common.status.active') : t('common.status.inactive')}
    </Badge>
  );
}

/** An enterprise's status: active, inactive, or suspended until its scheduled purge. */
export function EnterpriseStatusBadge({ enterprise }: { enterprise: Pick<Enterprise, 'isActive' | 'purgeAfter'> }) {
  const { t } = useTranslation();
  if (enterprise.purgeAfter == null) return <ActiveBadge active={enterprise.isActive} />;
  return (
    <Badge color="red" variant="light" style={BADGE_STYLE}>
      {t('enterprises.scheduled.badge')}
    </Badge>
  );
}

/** A report's status, in the colours of the status scheme. */
export function ReportStatusBadge({ status }: { status: ReportStatus }) {
  const { t } = useTranslation();
  return (
    <Badge color={STATUS_COLORS[status]} variant="light" style={BADGE_STYLE} data-testid="report-status">
      {t(`reportStatus.${status}`)}
    </Badge>
  );
}

/**
 * The person signs in with a second factor (an authenticator app). On a background of its own, as
 * the other badges: outlined, its text on a hovered row's grey was 4.49:1, under the 4.5 needed.
 */
export function MfaBadge() {
  const { t } = useTranslation();
  return (
    <Badge color="teal" variant="light" style={BADGE_STYLE} title={t('users.mfa.badgeTitle')} data-testid="mfa-badge">
      {t('users.mfa.badge')}
    </Badge>
  );
}
