import { Button, Stack, Text, Title } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** A screen that failed to load or render (often a stale chunk after a deploy). */
export function RouteErrorScreen() {
  const { t } = useTranslation();

  return (
    <Stack align="center" ta="center" gap="md" py={64} px="md" component="main" role="alert">
      <Title order={1}>{t('routeError.title')}</Title>
      <Text c="dimmed" maw={440}>
        {t('routeError.body')}
      </Text>
      <Button leftSection={<IconRefresh size={18} aria-hidden />} onClick={() => window.location.reload()}>
        {t('routeError.reload')}
      </Button>
    </Stack>
  );
}

type BoundaryProps = { children: ReactNode; /** The current location: leaving it clears the error. */ location: unknown };
type BoundaryState = { failed: boolean; location: unknown };

/**
 * Catches what the routes throw while loading or rendering (a lazy screen's chunk that is gone,
 * a bug) and shows RouteErrorScreen in their place, until the user goes to another page.
 */
export class RouteErrorBoundary extends Component<BoundaryProps, BoundaryState> {
  override state: BoundaryState = { failed: false, location: this.props.location };

  static getDerivedStateFromError(): Partial<BoundaryState> {
    return { failed: true };
  }

  static getDerivedStateFromProps(props: BoundaryProps, state: BoundaryState): Partial<BoundaryState> | null {
    return props.location === state.location ? null : { failed: false, location: props.location };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('[app] route error', error, info.componentStack);
  }

  override render() {
    return this.state.failed ? <RouteErrorScreen /> : this.props.children;
  }
}
