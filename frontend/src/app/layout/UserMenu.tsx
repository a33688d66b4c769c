import { Avatar, Group, Menu, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { IconChevronDown, IconDevices, IconKey, IconLogout, IconUserCircle } from '@tabler/icons-react';
import { Suspense, lazy, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useSignOut } from '@/features/auth';
import { href } from '@/lib/paths';
import { useCurrentUser } from '@/lib/session';

// Loaded when first opened: most visits never open it.
const YourSessionsDialog = lazy(() => import('@/features/monitoring/your-sessions/YourSessionsDialog'));

const initials = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]?.toUpperCase())
    .join('');

export function UserMenu() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const { signOut, isSigningOut } = useSignOut();
  const role = t(`roles.${user.role}`);
  // Mounted from the first opening on, so that closing it can play its transition.
  const [sessions, setSessions] = useState<'never' | 'open' | 'closed'>('never');

  return (
    <>
      <Menu position="bottom-end" width={240} withinPortal>
        <Menu.Target>
          {/* The name, "Account menu for <name>, <role>", comes from the hidden text: it contains the
            visible name and role in their order (WCAG 2.5.3), also when they are hidden on small
            screens, and the avatar's initials stay out of it. */}
          <UnstyledButton p={4} style={{ borderRadius: 'var(--mantine-radius-md)', minWidth: 0 }}>
            <Group gap="xs" wrap="nowrap">
              <Avatar color="blue" radius="xl" size={34} aria-hidden>
                {initials(user.fullName)}
              </Avatar>
              <VisuallyHidden>{t('userMenu.label', { name: user.fullName, role })}</VisuallyHidden>
              {/* A long name is cut short (one line, at most 14rem) rather than squeezing the header. */}
              <div style={{ lineHeight: 1.2, minWidth: 0, maxWidth: '14rem' }} aria-hidden>
                <Text size="sm" fw={600} lineClamp={1} visibleFrom="sm" data-testid="user-menu-name">
                  {user.fullName}
                </Text>
                <Text size="xs" c="dimmed" lineClamp={1} visibleFrom="sm">
                  {role}
                </Text>
              </div>
              <IconChevronDown size={14} aria-hidden />
            </Group>
          </UnstyledButton>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>
            <Text size="sm" fw={600} c="var(--mantine-color-text)">
              {user.fullName}
            </Text>
            <Text size="xs">{user.email}</Text>
            <Text size="xs">{role}</Text>
          </Menu.Label>
          <Menu.Divider />
          <Menu.Item component={Link} to={href('profile')} leftSection={<IconUserCircle size={16} aria-hidden />}>
            {t('userMenu.profile')}
          </Menu.Item>
          <Menu.Item leftSection={<IconDevices size={16} aria-hidden />} onClick={() => setSessions('open')}>
            {t('userMenu.yourSessions')}
          </Menu.Item>
          <Menu.Item component={Link} to={href('apiTokens')} leftSection={<IconKey size={16} aria-hidden />}>
            {t('userMenu.apiTokens')}
          </Menu.Item>
          <Menu.Item leftSection={<IconLogout size={16} aria-hidden />} onClick={signOut} disabled={isSigningOut} color="red">
            {isSigningOut ? t('userMenu.signingOut') : t('userMenu.signOut')}
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      {sessions !== 'never' && (
        <Suspense fallback={null}>
          <YourSessionsDialog opened={sessions === 'open'} onClose={() => setSessions('closed')} onSignOut={signOut} signingOut={isSigningOut} />
        </Suspense>
      )}
    </>
  );
}
