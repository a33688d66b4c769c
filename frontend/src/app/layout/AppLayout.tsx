import { Anchor, AppShell, Burger, Group, MantineThemeProvider, NavLink, ScrollArea } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { ModalsProvider } from '@mantine/modals';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, Suspense, useContext, useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation } from 'react-router-dom';
// The English strings of the signed-in screens come with this frame.
import '@/i18n/signed-in';
import { LanguageSwitch } from '@/components/LanguageSwitch';
import { Logo } from '@/components/Logo';
import { PageLoader } from '@/components/PageLoader';
import { activeNavKey, navItemsFor } from '@/lib/navigation-items';
import { href } from '@/lib/paths';
import { useCurrentUser } from '@/lib/session';
import { appQueryClient } from '../query-client';
import { ProvidedQueryClient } from '../query-context';
import { closeButtonLabels } from '../theme';
import classes from './AppLayout.module.css';
import { UnreadBadge } from './UnreadBadge';
import { UserMenu } from './UserMenu';
import { useRealtime } from './useRealtime';

/** The signed-in screens' query cache, and their dialogs' close and fields' clear buttons named in the interface language. */
function FrameProviders({ client, children }: { client: QueryClient; children: ReactNode }) {
  const { t } = useTranslation();
  const dialogs = useMemo(() => closeButtonLabels(t('common.close'), t('common.clear')), [t]);
  return (
    <QueryClientProvider client={client}>
      <MantineThemeProvider theme={dialogs}>{children}</MantineThemeProvider>
    </QueryClientProvider>
  );
}

/**
 * The signed-in frame, with the providers of the signed-in screens (query cache, modals). The
 * sidebar is always open from 1024 px (so it opens by itself when the window grows past it);
 * below that it is a drawer toggled by the burger and closed on navigation.
 */
export function AppLayout({ children }: { children?: ReactNode }) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const { pathname } = useLocation();
  const [opened, { toggle, close }] = useDisclosure(false);

  const queryClient = useContext(ProvidedQueryClient) ?? appQueryClient();
  useRealtime(queryClient);

  useEffect(close, [pathname, close]);
  const navItems = navItemsFor(user);
  // One entry is the current page: the most specific one (not also its parent's).
  const activeKey = activeNavKey(navItems, pathname);

  return (
    <FrameProviders client={queryClient}>
      <ModalsProvider labels={{ confirm: t('modals.confirm'), cancel: t('modals.cancel') }}>
        <AppShell header={{ height: 60 }} navbar={{ width: 260, breakpoint: 'md', collapsed: { mobile: !opened, desktop: false } }} padding="lg">
          <a href="#main-content" className={classes.skipLink}>
            {t('app.skipToContent')}
          </a>
          <AppShell.Header>
            <Group h="100%" px="md" justify="space-between" wrap="nowrap">
              <Group gap="sm" wrap="nowrap">
                <Burger
                  opened={opened}
                  onClick={toggle}
                  hiddenFrom="md"
                  size="sm"
                  aria-label={t('nav.toggle')}
                  aria-expanded={opened}
                  aria-controls="app-navbar"
                />
                <Anchor component={Link} to={href('dashboard')} underline="never" c="inherit">
                  <Logo />
                </Anchor>
              </Group>
              <Group gap="xs" wrap="nowrap">
                <LanguageSwitch />
                <UserMenu />
              </Group>
            </Group>
          </AppShell.Header>

          <AppShell.Navbar
            id="app-navbar"
            component="nav"
            aria-label={t('nav.label')}
            className={classes.navbar}
            data-closed={opened ? undefined : true}
            p="sm"
          >
            <AppShell.Section grow component={ScrollArea}>
              {navItems.map(({ key, label, icon: Icon, to }) => {
                const active = key === activeKey;
                return (
                  <NavLink
                    key={key}
                    component={Link}
                    to={to}
                    label={t(label)}
                    leftSection={<Icon size={18} stroke={1.6} aria-hidden />}
                    rightSection={key === 'messages' ? <UnreadBadge /> : undefined}
                    active={active}
                    aria-current={active ? 'page' : undefined}
                    variant="light"
                    onClick={close}
                  />
                );
              })}
            </AppShell.Section>
          </AppShell.Navbar>

          <AppShell.Main id="main-content" tabIndex={-1}>
            <Suspense fallback={<PageLoader />}>{children ?? <Outlet />}</Suspense>
          </AppShell.Main>
        </AppShell>
      </ModalsProvider>
    </FrameProviders>
  );
}
