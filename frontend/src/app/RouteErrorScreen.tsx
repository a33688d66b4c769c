import { Button, Stack, Text, Title } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router-dom';

/** A screen that failed to load or render (often a stale chunk after a deploy). */
export function RouteErrorScreen() {
  const { t } = useTranslation();
  console.error('[app] route error', useRouteError());

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
