import { Anchor, Card, Group, Loader, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { IconActivity } from '@tabler/icons-react';
import { keepPreviousData } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { ListUserActivityParams } from '@/api/generated/model';
import { useListUserActivity } from '@/api/generated/monitoring/monitoring';
import { Chart } from '@/components/charts/LazyChart';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { durationBarOption } from '@/lib/chart-options';
import { useFormat } from '@/lib/format';
import { useSessionFormat } from '../session-format';
import { SessionEmail } from './SessionCells';

type UserActivitySectionProps = {
  params: ListUserActivityParams;
  onPageChange: (page: number) => void;
  /** Filters are in effect: an empty page says "no match" rather than "nothing yet". */
  filtered: boolean;
  onShowUser: (userId: string) => void;
};

/** Per user: sessions, live ones, last seen, active time and places; a chart of the active time. */
export function UserActivitySection({ params, onPageChange, filtered, onShowUser }: UserActivitySectionProps) {
  const { t } = useTranslation();
  const format = useFormat();
  const sessionFormat = useSessionFormat();
  const activity = useListUserActivity(params, { query: { placeholderData: keepPreviousData } });

  const body = () => {
    if (activity.isPending) return <TableSkeleton rows={3} />;
    if (activity.isError) return <QueryError error={activity.error} onRetry={() => void activity.refetch()} retrying={activity.isFetching} />;
    const { items, total, page, pageSize } = activity.data;
    if (items.length === 0) {
      return (
        <EmptyMessage
          icon={<IconActivity size={32} aria-hidden />}
          title={filtered ? t('monitoring.activity.noMatch') : t('monitoring.activity.empty')}
          description={filtered ? t('monitoring.activity.noMatchHint') : t('monitoring.activity.emptyHint')}
        />
      );
    }
    const option = durationBarOption(
      items.map((row) => ({ label: row.user.fullName, seconds: row.activeSeconds })),
      sessionFormat.duration,
    );
    return (
      <Stack gap="md">
        <Chart option={option} label={t('monitoring.activity.chartLabel')} height={Math.max(160, items.length * 34 + 48)} testId="activity-chart" />
        <Table.ScrollContainer minWidth={820}>
          <Table highlightOnHover verticalSpacing="sm" aria-busy={activity.isPlaceholderData}>
            <VisuallyHidden component="caption">{t('monitoring.activity.caption')}</VisuallyHidden>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('monitoring.fields.user')}</Table.Th>
                <Table.Th scope="col" ta="end">
                  {t('monitoring.activity.sessions')}
                </Table.Th>
                <Table.Th scope="col" ta="end">
                  {t('monitoring.activity.activeNow')}
                </Table.Th>
                <Table.Th scope="col">{t('monitoring.fields.lastSeen')}</Table.Th>
                <Table.Th scope="col">{t('monitoring.activity.activeTime')}</Table.Th>
                <Table.Th scope="col">{t('monitoring.activity.places')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((row) => (
                <Table.Tr key={row.user.id} data-testid="activity-row">
                  <Table.Td>
                    {/* A button centres its lines: a name that wraps starts where the cell does. */}
                    <Anchor component="button" type="button" size="sm" fw={500} ta="start" onClick={() => onShowUser(row.user.id)}>
                      {row.user.fullName}
                    </Anchor>
                    <Text size="xs" c="dimmed">
                      <SessionEmail email={row.user.email} />
                    </Text>
                  </Table.Td>
                  <Table.Td ta="end">{format.number(row.sessionCount)}</Table.Td>
                  <Table.Td ta="end">{format.number(row.activeSessions)}</Table.Td>
                  <Table.Td>{format.dateTime(row.lastSeenAt)}</Table.Td>
                  <Table.Td>{sessionFormat.duration(row.activeSeconds)}</Table.Td>
                  <Table.Td>
                    {row.places.length > 0 ? (
                      <Text size="sm">{row.places.map((place) => sessionFormat.place(place)).join(' · ')}</Text>
                    ) : (
                      <Text span size="sm" c="dimmed">
                        {t('monitoring.place.unknown')}
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <ListPagination page={page} pageSize={pageSize} total={total} onChange={onPageChange} label={t('monitoring.activity.pages')} />
      </Stack>
    );
  };

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="monitoring-activity">
      <Stack gap="md">
        <Group justify="space-between" gap="sm">
          <Title order={2} fz="xl" id="monitoring-activity">
            {t('monitoring.activity.title')}
          </Title>
          {activity.isFetching && !activity.isPending && <Loader size="sm" role="status" aria-label={t('app.loading')} />}
        </Group>
        <Text size="sm" c="dimmed">
          {t('monitoring.activity.description')}
        </Text>
        {body()}
      </Stack>
    </Card>
  );
}
