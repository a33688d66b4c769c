import { Button, Card, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useDebouncedValue, useDocumentTitle } from '@mantine/hooks';
import { IconDeviceDesktopOff } from '@tabler/icons-react';
import { type UseQueryResult, keepPreviousData } from '@tanstack/react-query';
import { Suspense, lazy, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MapPlace } from '@/api/generated/model';
import { useListMonitoringPlaces, useListSessions } from '@/api/generated/monitoring/monitoring';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { useEnterpriseOptions } from '@/components/enterprises/use-enterprise-options';
import { PageHeader } from '@/components/PageHeader';
import { PAGE_SIZE, useListParams } from '@/lib/list-params';
import { useCurrentUser } from '@/lib/session';
import { useEnterpriseChoices, useUserChoices } from '../filter-choices';
import { MapLoading } from '../components/MapLoading';
import { type OpenedPlace, PlaceSessionsPanel } from '../components/PlaceSessionsPanel';
import { SessionFilters } from '../components/SessionFilters';
import { SessionsTable } from '../components/SessionsTable';
import { UserActivitySection } from '../components/UserActivitySection';
import { FILTER_KEYS, activityQuery, placesQuery, sessionQuery, uuid } from '../filters';
import { MAX_PLACES, WORLD_ZOOM, placeTotals } from '../map-data';
import { useSessionFormat } from '../session-format';

// Leaflet and the outlines load with the map, after the tables can show.
const SessionMap = lazy(() => import('../components/SessionMap'));

/** The map's zoom is asked for once it has settled (a wheel zooms several levels in a row). */
const ZOOM_DEBOUNCE_MS = 300;

/**
 * System monitoring, for the platform admin (every enterprise, /admin/monitoring) and a CEO
 * (their enterprise, /ceo/monitoring): every session of the filters counted per place on a map
 * (a place opens its sessions in a side panel), the sessions in a table, with their filters and
 * actions, and the activity per user. The real-time client refreshes every monitoring query
 * when the server announces sessions starting, moving or ending (`app/layout/useRealtime.ts`).
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
  const [zoom, setZoom] = useState(WORLD_ZOOM);
  const [settledZoom] = useDebouncedValue(zoom, ZOOM_DEBOUNCE_MS);
  const places = useListMonitoringPlaces(placesQuery(values, { isAdmin, zoom: settledZoom }), { query: { placeholderData: keepPreviousData } });
  const [openedPlace, setOpenedPlace] = useState<OpenedPlace | null>(null);
  const enterprises = useEnterpriseOptions(isAdmin);
  const enterpriseChoices = useEnterpriseChoices(isAdmin);
  // The admin's users of the chosen enterprise; a CEO's are their enterprise's (server-side).
  const userChoices = useUserChoices(isAdmin ? uuid(values.enterpriseId) : undefined);
  // A user chosen elsewhere (a row's "show this user", the URL) is named from the sessions shown.
  const knownUser = (sessions.data?.items ?? []).find((s) => s.user.id === values.userId)?.user;

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
          users={{ ...userChoices, selectedLabel: knownUser?.fullName ?? t('monitoring.filters.selectedUser') }}
          enterprises={
            isAdmin
              ? { ...enterpriseChoices, selectedLabel: enterprises.names.get(values.enterpriseId) ?? t('monitoring.filters.selectedEnterprise') }
              : undefined
          }
        />
      </Card>
      <MapSection query={places} fitKey={filterKey} onZoomChange={setZoom} onOpenPlace={setOpenedPlace} />
      {openedPlace && (
        <PlaceSessionsPanel
          key={JSON.stringify(openedPlace.filter)}
          place={openedPlace}
          values={values}
          isAdmin={isAdmin}
          enterpriseNames={enterprises.names}
          onShowUser={showUser}
          onClose={() => setOpenedPlace(null)}
        />
      )}
      {/* A little less padding than the other cards: the table's nine columns need the width. */}
      <Card withBorder radius="md" padding="md" component="section" aria-labelledby="monitoring-sessions">
        <Stack gap="md">
          <Group justify="space-between" gap="sm">
            <Title order={2} fz="xl" id="monitoring-sessions">
              {t('monitoring.sessions.title')}
            </Title>
            {sessions.isFetching && !sessions.isPending && <Loader size="sm" role="status" aria-label={t('app.loading')} />}
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

type MapSectionProps = {
  query: UseQueryResult<MapPlace[]>;
  /** The filters: the view fits the places again when they change. */
  fitKey: string;
  onZoomChange: (zoom: number) => void;
  onOpenPlace: (place: OpenedPlace) => void;
};

function MapSection({ query, fitKey, onZoomChange, onOpenPlace }: MapSectionProps) {
  const { t } = useTranslation();
  const format = useSessionFormat();
  const places = query.data ?? [];
  const totals = placeTotals(places);

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="monitoring-map">
      <Stack gap="sm">
        <Group justify="space-between" gap="sm">
          <Title order={2} fz="xl" id="monitoring-map">
            {t('monitoring.map.title')}
          </Title>
          {query.isFetching && !query.isPending && <Loader size="sm" role="status" aria-label={t('app.loading')} />}
        </Group>
        <Text size="sm" c="dimmed" id="monitoring-map-hint">
          {t('monitoring.map.hint')}
        </Text>
        {query.isSuccess && (
          <Text size="sm" fw={500} data-testid="map-summary" aria-live="polite">
            {totals.sessions === 0
              ? t('monitoring.map.none')
              : t('monitoring.map.summary', { sessions: format.count('sessionCount', totals.sessions), places: format.count('placeCount', totals.places) })}
            {totals.flagged > 0 && ` · ${format.count('flaggedCount', totals.flagged)}`}
          </Text>
        )}
        {query.isError ? (
          <QueryError error={query.error} onRetry={() => void query.refetch()} retrying={query.isFetching} />
        ) : query.isPending ? (
          <MapLoading />
        ) : (
          <Suspense fallback={<MapLoading />}>
            <SessionMap
              places={places}
              label={t('monitoring.map.label')}
              describedBy="monitoring-map-hint"
              // Fitted to the places of new filters once they are in (not to the previous ones meanwhile).
              fitKey={query.isPlaceholderData ? undefined : fitKey}
              onZoomChange={onZoomChange}
              onOpenPlace={(place, filter) => onOpenPlace({ name: format.mapPlace(place), filter })}
            />
          </Suspense>
        )}
        {(totals.unlocated > 0 || places.length >= MAX_PLACES) && (
          <Text size="sm" c="dimmed" data-testid="map-notes">
            {totals.unlocated > 0 && t('monitoring.map.unplaced', { count: totals.unlocated })}{' '}
            {places.length >= MAX_PLACES && t('monitoring.map.limited', { places: format.count('placeCount', MAX_PLACES) })}
          </Text>
        )}
      </Stack>
    </Card>
  );
}
