import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';

import { MantineProvider } from '@mantine/core';
import { notifications, useNotifications } from '@mantine/notifications';
import type { QueryClient } from '@tanstack/react-query';
import { type ReactNode, Suspense, lazy, useEffect, useState } from 'react';
import { session } from '@/lib/session';
import { ProvidedQueryClient } from './query-context';
import { cssVariablesResolver, theme } from './theme';

type AppProviderProps = {
  children: ReactNode;
  /** The query cache of the signed-in screens; by default the app's own (query-client.ts). */
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
 * Every provider the screens rely on; tests render through it too. The query client's and the
 * modals' providers are in the signed-in frame (layout/AppLayout.tsx): only signed-in screens
 * query the API through react-query or open modals, and the sign-in page loads neither.
 */
export function AppProvider({ children, queryClient, env = 'default' }: AppProviderProps) {
  // Nothing cached for one user may leak to the next one (the app's own client sees to it too).
  useEffect(() => (queryClient ? session.onEnd(() => queryClient.clear()) : undefined), [queryClient]);
  // Nor what they were told: a toast ("Passkey … removed") does not stay on the sign-in page.
  useEffect(() => session.onEnd(() => notifications.clean()), []);

  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light" env={env}>
      <ProvidedQueryClient.Provider value={queryClient ?? null}>
        <LazyNotifications />
        {children}
      </ProvidedQueryClient.Provider>
    </MantineProvider>
  );
}
