import { Badge, Card, Group, SimpleGrid, Stack, Text, ThemeIcon, Title, UnstyledButton } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconChevronRight } from '@tabler/icons-react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { navItemsFor } from '@/lib/navigation-items';
import { useCurrentUser } from '@/lib/session';
import { RoleSummary } from './RoleSummary';

function formatDateTime(value: string | null | undefined, locale: string, t: TFunction): string {
  if (!value) return t('dashboard.never');
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short' }).format(date);
}

export default function DashboardScreen() {
  const { t, i18n } = useTranslation();
  const user = useCurrentUser();
  const locale = i18n.resolvedLanguage ?? 'en';
  const role = t(`roles.${user.role}`);
  const shortcuts = navItemsFor(user).filter((item) => item.key !== 'dashboard');
  useDocumentTitle(`${t('dashboard.pageTitle')} · ${t('app.name')}`);

  const details = [
    { label: t('dashboard.email'), value: user.email },
    { label: t('dashboard.role'), value: role },
    {
      label: t('dashboard.status'),
      value: (
        <Badge color={user.status === 'active' ? 'teal' : 'gray'} variant="light">
          {t(`userStatus.${user.status}`)}
        </Badge>
      ),
    },
    { label: t('dashboard.lastLogin'), value: formatDateTime(user.lastLogin, locale, t) },
    { label: t('dashboard.memberSince'), value: formatDateTime(user.createdAt, locale, t) },
  ];

  return (
    <Stack gap="lg" maw={960}>
      <Stack gap={4}>
        <Title order={1}>{t('dashboard.welcome', { name: user.fullName })}</Title>
        <Text c="dimmed">{t('dashboard.signedInAs', { role })}</Text>
        <Text>{t(`roleDescriptions.${user.role}`)}</Text>
      </Stack>

      <RoleSummary user={user} />

      <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="account-heading">
        <Title order={2} fz="lg" mb="md" id="account-heading">
          {t('dashboard.account')}
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" component="dl" m={0}>
          {details.map(({ label, value }) => (
            <div key={label}>
              <Text component="dt" size="sm" c="dimmed">
                {label}
              </Text>
              <Text component="dd" m={0} fw={500}>
                {value}
              </Text>
            </div>
          ))}
        </SimpleGrid>
      </Card>

      {shortcuts.length > 0 && (
        <section aria-labelledby="shortcuts-heading">
          <Title order={2} fz="lg" mb="md" id="shortcuts-heading">
            {t('dashboard.shortcuts')}
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
            {shortcuts.map(({ key, label, icon: Icon, to }) => (
              <UnstyledButton key={key} component={Link} to={to}>
                <Card withBorder radius="md" padding="md">
                  <Group justify="space-between" wrap="nowrap">
                    <Group gap="sm" wrap="nowrap">
                      <ThemeIcon variant="light" size="lg" aria-hidden>
                        <Icon size={20} />
                      </ThemeIcon>
                      <Text fw={500}>{t(label)}</Text>
                    </Group>
                    <IconChevronRight size={18} aria-hidden />
                  </Group>
                </Card>
              </UnstyledButton>
            ))}
          </SimpleGrid>
        </section>
      )}
    </Stack>
  );
}
