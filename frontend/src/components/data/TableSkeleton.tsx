import { Skeleton, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Placeholder rows while a table loads. */
export function TableSkeleton({ rows = 5 }: { rows?: number }) {
  const { t } = useTranslation();
  return (
    <Stack gap="sm" role="status" aria-live="polite" aria-label={t('app.loading')} aria-busy>
      <Skeleton height={28} radius="sm" />
      {Array.from({ length: rows }, (_, index) => (
        <Skeleton key={index} height={40} radius="sm" />
      ))}
    </Stack>
  );
}
