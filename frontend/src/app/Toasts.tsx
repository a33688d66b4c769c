import { MantineThemeProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { closeButtonLabels } from './theme';

/**
 * The notification toasts, a module of their own so that they can load lazily (provider.tsx): a
 * dynamic import of '@mantine/notifications' itself would be the package the store already loaded.
 * Their close buttons are named once the signed-in strings are there (a toast before sign-in is
 * rare, and its button is better unnamed than named with a key).
 */
export default function Toasts() {
  const { t, i18n } = useTranslation();
  const close = i18n.exists('common.close') ? t('common.close') : undefined;
  const labels = useMemo(() => (close ? closeButtonLabels(close) : {}), [close]);
  return (
    <MantineThemeProvider theme={labels}>
      <Notifications position="top-right" />
    </MantineThemeProvider>
  );
}
