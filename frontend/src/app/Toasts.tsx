import { MantineThemeProvider, getDefaultZIndex } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { closeButtonLabels } from './theme';
import classes from './Toasts.module.css';

/**
 * The notification toasts, a module of their own so that they can load lazily (provider.tsx): a
 * dynamic import of '@mantine/notifications' itself would be the package the store already loaded.
 * Their close buttons are named once the signed-in strings are there (a toast before sign-in is
 * rare, and its button is better unnamed than named with a key). They open below the signed-in
 * header (Toasts.module.css), not over it: a toast over the account menu took its clicks, and a
 * pointer resting on a toast keeps it open. They lie under any open dialog and its overlay, never
 * over it: a dialog says its own failures at its form (components/forms/InlineNotice).
 */
export default function Toasts() {
  const { t, i18n } = useTranslation();
  const close = i18n.exists('common.close') ? t('common.close') : undefined;
  const labels = useMemo(() => (close ? closeButtonLabels(close) : {}), [close]);
  return (
    <MantineThemeProvider theme={labels}>
      <Notifications position="top-right" zIndex={getDefaultZIndex('modal') - 1} classNames={{ root: classes.root }} />
    </MantineThemeProvider>
  );
}
