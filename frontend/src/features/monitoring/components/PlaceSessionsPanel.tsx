import { Drawer, Stack, Text } from '@mantine/core';
import { IconDeviceDesktopOff } from '@tabler/icons-react';
import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useListSessions } from '@/api/generated/monitoring/monitoring';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { PAGE_SIZE } from '@/lib/list-params';
import { type FilterValues, type PlaceFilter, placeSessionsQuery } from '../filters';
import { useSessionFormat } from '../session-format';
import { SessionsTable } from './SessionsTable';

/** A place opened on the map: its name and what narrows the list to it. */
export type OpenedPlace = { name: string; filter: PlaceFilter };

type PlaceSessionsPanelProps = {
  place: OpenedPlace;
  values: FilterValues;
  isAdmin: boolean;
  enterpriseNames: ReadonlyMap<string, string>;
  onShowUser: (userId: string) => void;
  onClose: () => void;
};

/**
 * The sessions at one place of the map, with the screen's filters, a page at a time, and the
 * table's actions on each. A side panel: Escape or its close button closes it, and the focus
 * goes back to the marker.
 */
export function PlaceSessionsPanel({ place, values, isAdmin, enterpriseNames, onShowUser, onClose }: PlaceSessionsPanelProps) {
  const { t } = useTranslation();
  const format = useSessionFormat();
  const [page, setPage] = useState(1);
  const sessions = useListSessions(placeSessionsQuery(values, place.filter, { isAdmin, page, pageSize: PAGE_SIZE }), {
    query: { placeholderData: keepPreviousData },
  });

  const body = () => {
    if (sessions.isPending) return <TableSkeleton />;
    if (sessions.isError) return <QueryError error={sessions.error} onRetry={() => void sessions.refetch()} retrying={sessions.isFetching} />;
    const { items, total, pageSize } = sessions.data;
    if (items.length === 0) {
      return (
        <EmptyMessage
          icon={<IconDeviceDesktopOff size={32} aria-hidden />}
          title={t('monitoring.placePanel.noMatch')}
          description={t('monitoring.placePanel.noMatchHint')}
        />
      );
    }
    return (
      <Stack gap="md">
        <Text size="sm" c="dimmed" data-testid="place-total">
          {format.count('sessionCount', total)}
        </Text>
        <SessionsTable
          sessions={items}
          showEnterprise={isAdmin}
          enterpriseNames={enterpriseNames}
          onShowUser={(userId) => {
            onClose();
            onShowUser(userId);
          }}
          busy={sessions.isPlaceholderData}
        />
        <ListPagination page={page} pageSize={pageSize} total={total} onChange={setPage} label={t('monitoring.placePanel.pages', { place: place.name })} />
      </Stack>
    );
  };

  return (
    <Drawer
      opened
      onClose={onClose}
      position="right"
      size="60rem"
      title={t('monitoring.placePanel.title', { place: place.name })}
      closeButtonProps={{ 'aria-label': t('common.close') }}
      data-testid="place-panel"
    >
      {body()}
    </Drawer>
  );
}
