import { Center, Loader } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Shown while a lazily loaded screen arrives. */
export function PageLoader({ fullScreen = false }: { fullScreen?: boolean }) {
  const { t } = useTranslation();
  return (
    <Center h={fullScreen ? '100dvh' : 240} role="status" aria-live="polite">
      <Loader role="status" aria-label={t('app.loading')} />
    </Center>
  );
}
