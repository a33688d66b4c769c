import { Button, Card, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconDeviceDesktopOff } from '@tabler/icons-react';
import { type UseQueryResult, keepPreviousData } from '@tanstack/react-query';
import { Suspense, lazy, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PageSession } from '@/api/generated/model';
import { useListSessions, useListUserActivity } from '@/api/generated/monitoring/monitoring';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { useEnterpriseOptions } from '@/components/enterprises/use-enterprise-options';
import { PageHeader } from '@/components/PageHeader';
import { errorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import { PAGE_SIZE, useListParams } from '@/lib/list-params';
import { useCurrentUser } from '@/lib/session';
import { MapLoading } from '../components/MapLoading';
import { SessionFilters } from '../components/SessionFilters';
import { SessionsTable } from '../components/SessionsTable';
import { UserActivitySection } from '../components/UserActivitySection';
import { FILTER_KEYS, activityQuery, sessionQuery } from '../filters';
import { isPlaced } from '../map-data';

// Leaflet, its clustering and the outlines load with the map, after the tables can show.
const SessionMap = lazy(() => import('../components/SessionMap'));

/** The most sessions the map draws: the API's largest page, the most recently active first. */
const MAP_LIMIT = 100;
/** Users offered by the user filter (those with sessions in scope, the most recently seen first). */
const USER_OPTIONS_LIMIT = 100;

/**
 * System monitoring, for the platform admin (every enterprise, /admin/monitoring) and a CEO
 * (their enterprise, /ceo/monitoring): the sessions on a map and in a table, with their
 * filters and actions, and the activity per user. The real-time client refreshes every
 * monitoring query when the server announces a session starting, moving or ending.
 */
export default function MonitoringScreen() {
  const { t } = useTranslation();
  const caller = useCurrentUser();
  const isAdmin = caller.role === 'PlatformAdmin';
  const list = useListParams(FILTER_KEYS);
  const { values } = list;
  useDocumentTitle(`${t('monitoring.pageTitle')} · ${t('app.name')}`);

  // The activity table pages on its own, from the first page whenever the filters change.
  const filterKey = FILTER_KEYS.map((key) => values[key]).join('\u0000');
  const [activityPage, setActivityPage] = useState({ filterKey, page: 1 });
  const currentActivityPage = activityPage.filterKey === filterKey ? activityPage.page : 1;

  const sessions = useListSessions(sessionQuery(values, { isAdmin, page: list.page, pageSize: PAGE_SIZE }), {
    query: { placeholderData: keepPreviousData },
  });
  const mapSessions = useListSessions(sessionQuery(values, { isAdmin, page: 1, pageSize: MAP_LIMIT }), { query: { placeholderData: keepPreviousData } });
  const enterprises = useEnterpriseOptions(isAdmin);
  const userChoices = useListUserActivity(
    { enterpriseId: activityQuery(values, { isAdmin, page: 1, pageSize: USER_OPTIONS_LIMIT }).enterpriseId, page: 1, pageSize: USER_OPTIONS_LIMIT },
    { query: { staleTime: 60_000 } },
  );

  const userOptions = (userChoices.data?.items ?? []).map((row) => ({ value: row.user.id, label: row.user.fullName }));
  // A user chosen elsewhere (a row's "show this user") may be beyond the options: name them anyway.
  if (values.userId && !userOptions.some((option) => option.value === values.userId)) {
    const known = [...(sessions.data?.items ?? []), ...(mapSessions.data?.items ?? [])].find((s) => s.user.id === values.userId)?.user;
    userOptions.unshift({ value: values.userId, label: known?.fullName ?? t('monitoring.filters.selectedUser') });
  }

  const showUser = (userId: string) => list.update({ userId });

  const sessionsBody = () => {
    if (sessions.isPending) return <TableSkeleton />;
    if (sessions.isError) return <QueryError error={sessions.error} onRetry={() => void sessions.refetch()} retrying={sessions.isFetching} />;
    const { items, total, pageSize } = sessions.data;
    if (items.length === 0) {
      return list.filtered ? (
        <EmptyMessage
          icon={<IconDeviceDesktopOff size={32} aria-hidden />}
          title={t('monitoring.sessions.noMatch')}
          description={t('monitoring.sessions.noMatchHint')}
          action={
            <Button variant="default" onClick={list.reset}>
              {t('common.clearFilters')}
            </Button>
          }
        />
      ) : (
        <EmptyMessage
          icon={<IconDeviceDesktopOff size={32} aria-hidden />}
          title={t('monitoring.sessions.empty')}
          description={t('monitoring.sessions.emptyHint')}
        />
      );
    }
    return (
      <Stack gap="md">
        <SessionsTable sessions={items} showEnterprise={isAdmin} enterpriseNames={enterprises.names} onShowUser={showUser} busy={sessions.isPlaceholderData} />
        <ListPagination page={list.page} pageSize={pageSize} total={total} onChange={list.setPage} label={t('monitoring.sessions.pages')} />
      </Stack>
    );
  };

  return (
    <Stack gap="lg">
      <PageHeader title={t('monitoring.title')} description={isAdmin ? t('monitoring.descriptionAdmin') : t('monitoring.descriptionCeo')} />
      <Card withBorder radius="md" padding="lg" component="section" aria-label={t('monitoring.filters.label')}>
        <SessionFilters
          values={values}
          update={list.update}
          users={{ options: userOptions, loading: userChoices.isPending }}
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
      <MapSection query={mapSessions} />
      {/* A little less padding than the other cards: the table's nine columns need the width. */}
      <Card withBorder radius="md" padding="md" component="section" aria-labelledby="monitoring-sessions">
        <Stack gap="md">
          <Group justify="space-between" gap="sm">
            <Title order={2} fz="xl" id="monitoring-sessions">
              {t('monitoring.sessions.title')}
            </Title>
            {sessions.isFetching && !sessions.isPending && <Loader size="sm" aria-label={t('app.loading')} />}
          </Group>
          {sessionsBody()}
        </Stack>
      </Card>
      <UserActivitySection
        params={activityQuery(values, { isAdmin, page: currentActivityPage, pageSize: PAGE_SIZE })}
        onPageChange={(page) => setActivityPage({ filterKey, page })}
        filtered={list.filtered}
        onShowUser={showUser}
      />
    </Stack>
  );
}

function MapSection({ query }: { query: UseQueryResult<PageSession> }) {
  const { t } = useTranslation();
  const format = useFormat();
  const items = query.data?.items ?? [];
  const total = query.data?.total ?? 0;
  const unplaced = items.filter((session) => !isPlaced(session)).length;

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="monitoring-map">
      <Stack gap="sm">
        <Title order={2} fz="xl" id="monitoring-map">
          {t('monitoring.map.title')}
        </Title>
        <Text size="sm" c="dimmed" id="monitoring-map-hint">
          {t('monitoring.map.hint')}
        </Text>
        {query.isError ? (
          <QueryError error={query.error} onRetry={() => void query.refetch()} retrying={query.isFetching} />
        ) : query.isPending ? (
          <MapLoading />
        ) : (
          <Suspense fallback={<MapLoading />}>
            <SessionMap sessions={items} label={t('monitoring.map.label')} describedBy="monitoring-map-hint" />
          </Suspense>
        )}
        {(total > items.length || unplaced > 0) && (
          <Text size="sm" c="dimmed" data-testid="map-notes">
            {total > items.length && t('monitoring.map.truncated', { shown: format.number(items.length), total: format.number(total) })}{' '}
            {unplaced > 0 && t('monitoring.map.unplaced', { count: unplaced })}
          </Text>
        )}
      </Stack>
    </Card>
  );
}
