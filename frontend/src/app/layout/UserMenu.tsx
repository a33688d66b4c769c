import { Avatar, Group, Menu, Text, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconLogout } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useSignOut } from '@/features/auth';
import { useCurrentUser } from '@/lib/session';

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

  return (
    <Menu position="bottom-end" width={240} withinPortal>
      <Menu.Target>
        <UnstyledButton aria-label={t('userMenu.label', { name: user.fullName })} p={4} style={{ borderRadius: 'var(--mantine-radius-md)' }}>
          <Group gap="xs" wrap="nowrap">
            <Avatar color="blue" radius="xl" size={34} aria-hidden>
              {initials(user.fullName)}
            </Avatar>
            <div style={{ lineHeight: 1.2 }}>
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
        <Menu.Item leftSection={<IconLogout size={16} aria-hidden />} onClick={signOut} disabled={isSigningOut} color="red">
          {isSigningOut ? t('userMenu.signingOut') : t('userMenu.signOut')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
