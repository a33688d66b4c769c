import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';

import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { session } from '@/lib/session';
import { createQueryClient } from './query-client';
import { theme } from './theme';

type AppProviderProps = {
  children: ReactNode;
  queryClient?: QueryClient;
  /** `test`: Mantine without transitions or portals (jsdom screen tests). */
  env?: 'default' | 'test';
};

/** Every provider the screens rely on; tests render through it too. */
export function AppProvider({ children, queryClient, env = 'default' }: AppProviderProps) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  const { t } = useTranslation();

  // Nothing cached for one user may leak to the next one.
  useEffect(() => session.onEnd(() => client.clear()), [client]);

  return (
    <MantineProvider theme={theme} defaultColorScheme="light" env={env}>
      <QueryClientProvider client={client}>
        <ModalsProvider labels={{ confirm: t('modals.confirm'), cancel: t('modals.cancel') }}>
          <Notifications position="top-right" />
          {children}
        </ModalsProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
