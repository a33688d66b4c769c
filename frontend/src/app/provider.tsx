import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';

import { MantineProvider } from '@mantine/core';
import { useNotifications } from '@mantine/notifications';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, Suspense, lazy, useEffect, useState } from 'react';
import { session } from '@/lib/session';
import { createQueryClient } from './query-client';
import { cssVariablesResolver, theme } from './theme';

type AppProviderProps = {
  children: ReactNode;
  queryClient?: QueryClient;
  /** `test`: Mantine without transitions or portals (jsdom screen tests). */
  env?: 'default' | 'test';
};

const Toasts = lazy(() => import('./Toasts'));

/**
 * The notification toasts, loaded with the first notification: most pages never show one. The
 * store (`notifications.show`) is always there; shown notifications wait in it for the toasts.
 */
function LazyNotifications() {
  const { notifications, queue } = useNotifications();
  const [needed, setNeeded] = useState(false);
  if (!needed && notifications.length + queue.length > 0) setNeeded(true);
  return needed ? (
    <Suspense fallback={null}>
      <Toasts />
    </Suspense>
  ) : null;
}

/**
 * Every provider the screens rely on; tests render through it too. The modals' provider is in the
 * signed-in frame (layout/AppLayout.tsx): only signed-in screens open modals.
 */
export function AppProvider({ children, queryClient, env = 'default' }: AppProviderProps) {
  const [client] = useState(() => queryClient ?? createQueryClient());

  // Nothing cached for one user may leak to the next one.
  useEffect(() => session.onEnd(() => client.clear()), [client]);

  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light" env={env}>
      <QueryClientProvider client={client}>
        <LazyNotifications />
        {children}
      </QueryClientProvider>
    </MantineProvider>
  );
}
