import { Button, Skeleton, Stack } from '@mantine/core';
import { IconFileOff } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { isApiRequestError } from '@/api/mutator';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { QueryError } from '@/components/data/QueryError';
import { PageHeader } from '@/components/PageHeader';

/** A screen that could not show its subject yet: loading, not found (or not ours), or failed. */
export function LoadState({
  query,
  back,
  title,
  notFound,
}: {
  query?: { isPending: boolean; isError: boolean; error: unknown; isFetching: boolean; refetch: () => unknown };
  back: { to: string; label: string };
  title: string;
  notFound?: string;
}) {
  const { t } = useTranslation();
  if (query?.isPending) {
    return (
      <Stack gap="lg" role="status" aria-label={t('app.loading')} aria-busy>
        <Skeleton height={36} width="40%" />
        <Skeleton height={200} radius="md" />
      </Stack>
    );
  }
  const missing = !query || (isApiRequestError(query.error) && (query.error.status === 404 || query.error.status === 403));
  return (
    <Stack gap="lg">
      <PageHeader title={title} back={back} />
      {missing ? (
        <EmptyMessage
          icon={<IconFileOff size={32} aria-hidden />}
          title={notFound ?? t('errors.notFound')}
          action={
            <Button component={Link} to={back.to} variant="default">
              {back.label}
            </Button>
          }
        />
      ) : (
        <QueryError error={query.error} onRetry={() => void query.refetch()} retrying={query.isFetching} />
      )}
    </Stack>
  );
}
