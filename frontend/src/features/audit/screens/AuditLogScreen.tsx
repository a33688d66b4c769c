import { Button, Card, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconDownload, IconListSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AuditFormat } from '@/api/generated/model';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { QueryError } from '@/components/data/QueryError';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { useEnterpriseOptions } from '@/components/enterprises/use-enterprise-options';
import { PageHeader } from '@/components/PageHeader';
import { errorMessage } from '@/lib/errors';
import { useListParams } from '@/lib/list-params';
import { notify } from '@/lib/notify';
import { useCurrentUser } from '@/lib/session';
import { exportAuditLog, useAuditLog } from '../api';
import { AuditEntry } from '../components/AuditEntry';
import { AuditFilters } from '../components/AuditFilters';
import classes from '../components/AuditLog.module.css';
import { FILTER_KEYS, auditQuery } from '../filters';

const FORMATS: readonly AuditFormat[] = ['csv', 'jsonl'];

/**
 * The audit log, for a CEO (their enterprise's, /audit) and the platform admin (everyone's, or
 * one enterprise's, /admin/audit): each entry as a sentence, newest first, older ones loaded on
 * demand; the filters live in the URL (a link to `?target=<id>` shows what was done to one
 * thing), and the same selection exports as CSV or JSON Lines.
 */
export default function AuditLogScreen() {
  const { t } = useTranslation();
  const caller = useCurrentUser();
  const isAdmin = caller.role === 'PlatformAdmin';
  const list = useListParams(FILTER_KEYS);
  const query = auditQuery(list.values, { isAdmin });
  const log = useAuditLog(query);
  const enterprises = useEnterpriseOptions(isAdmin);
  const [exporting, setExporting] = useState<AuditFormat | null>(null);
  useDocumentTitle(`${t('audit.pageTitle')} · ${t('app.name')}`);

  const download = async (fileFormat: AuditFormat) => {
    setExporting(fileFormat);
    try {
      await exportAuditLog(query, fileFormat);
    } catch (error) {
      notify.failure('audit.export', t('audit.export.failed'), errorMessage(error, t));
    } finally {
      setExporting(null);
    }
  };

  const entries = log.data?.pages.flatMap((page) => page.items) ?? [];

  const body = () => {
    if (log.isPending) return <TableSkeleton rows={6} />;
    // Nothing to show at all; a failure to load more is shown below the entries already there.
    if (!log.data) return <QueryError error={log.error} onRetry={() => void log.refetch()} retrying={log.isFetching} />;
    if (entries.length === 0) {
      return list.filtered ? (
        <EmptyMessage
          icon={<IconListSearch size={32} aria-hidden />}
          title={t('audit.list.noMatch')}
          description={t('audit.list.noMatchHint')}
          action={
            <Button variant="default" onClick={list.reset}>
              {t('common.clearFilters')}
            </Button>
          }
        />
      ) : (
        <EmptyMessage icon={<IconListSearch size={32} aria-hidden />} title={t('audit.list.empty')} description={t('audit.list.emptyHint')} />
      );
    }
    return (
      <Stack gap="md">
        <ol className={classes.list} aria-label={t('audit.list.label')} aria-busy={log.isFetching}>
          {entries.map((event) => (
            <AuditEntry key={event.id} event={event} showEnterprise={isAdmin} enterpriseNames={enterprises.names} onFilter={(patch) => list.update(patch)} />
          ))}
        </ol>
        <Group justify="space-between" gap="sm" wrap="wrap">
          <Text size="sm" c="dimmed" aria-live="polite">
            {t('audit.list.shown', { count: entries.length })}
          </Text>
          {log.hasNextPage ? (
            <Button variant="default" onClick={() => void log.fetchNextPage()} loading={log.isFetchingNextPage}>
              {t('audit.list.loadMore')}
            </Button>
          ) : (
            <Text size="sm" c="dimmed">
              {t('audit.list.end')}
            </Text>
          )}
        </Group>
        {log.isFetchNextPageError && <QueryError error={log.error} onRetry={() => void log.fetchNextPage()} retrying={log.isFetchingNextPage} />}
        {log.isRefetchError && <QueryError error={log.error} onRetry={() => void log.refetch()} retrying={log.isFetching} />}
      </Stack>
    );
  };

  return (
    <Stack gap="lg">
      <PageHeader
        title={t('audit.pageTitle')}
        description={isAdmin ? t('audit.descriptionAdmin') : t('audit.descriptionCeo')}
        actions={FORMATS.map((fileFormat) => (
          <Button
            key={fileFormat}
            variant="default"
            leftSection={<IconDownload size={16} aria-hidden />}
            onClick={() => void download(fileFormat)}
            loading={exporting === fileFormat}
            disabled={exporting !== null && exporting !== fileFormat}
            title={t('audit.export.hint')}
          >
            {t(`audit.export.${fileFormat}`)}
          </Button>
        ))}
      />
      <Card withBorder radius="md" padding="lg" component="section" aria-label={t('audit.filters.label')}>
        <AuditFilters
          values={list.values}
          update={list.update}
          filtered={list.filtered}
          onClear={list.reset}
          enterprises={
            isAdmin
              ? {
                  options: enterprises.options,
                  loading: enterprises.query.isPending,
                  partial: enterprises.partial,
                  error: enterprises.query.isError ? errorMessage(enterprises.query.error, t) : undefined,
                }
              : undefined
          }
        />
      </Card>
      <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="audit-entries">
        <Stack gap="md">
          <Group justify="space-between" gap="sm">
            <Title order={2} fz="lg" id="audit-entries">
              {t('audit.list.label')}
            </Title>
            {log.isFetching && !log.isPending && !log.isFetchingNextPage && <Loader size="xs" role="status" aria-label={t('app.loading')} />}
          </Group>
          {body()}
        </Stack>
      </Card>
    </Stack>
  );
}
