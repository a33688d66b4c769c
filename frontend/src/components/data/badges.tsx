import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Role, UserStatus } from '@/api/generated/model';

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

/** An enterprise's status. */
export function ActiveBadge({ active }: { active: boolean }) {
  const { t } = useTranslation();
  return (
    <Badge color={active ? 'teal' : 'gray'} variant="light" style={BADGE_STYLE}>
      {active ? t('common.status.active') : t('common.status.inactive')}
    </Badge>
  );
}
