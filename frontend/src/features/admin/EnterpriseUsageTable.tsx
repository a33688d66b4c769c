import { Anchor, Card, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useListEnterpriseUsage } from '@/api/generated/enterprises/enterprises';
import type { EnterpriseUsageSummary, UsageSort } from '@/api/generated/model';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { SortableTh } from '@/components/data/SortableTh';
import { StackedTable } from '@/components/data/StackedTable';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { useFormat } from '@/lib/format';
import { href } from '@/lib/paths';

const PAGE_SIZE = 20;
/** The columns after the enterprise's name, each a figure the server sorts by. */
const FIGURES = ['people', 'activeSessions', 'storageBytes', 'spreadsheetBytes', 'exportBytes', 'apiCalls', 'emails', 'signIns'] as const;
type Figure = (typeof FIGURES)[number];

/**
 * Every enterprise's usage (`GET /enterprises/usage`), on the platform admin's dashboard: what
 * each holds now (people and storage against their limits) and what each did over a period, in
 * a table that sorts by any column (on the server, so the order holds across pages). Its counts
 * cover the dashboard's period (`days`, the one control for the whole page). Each name leads to
 * the enterprise's page, where its usage is drawn day by day.
 */
export function EnterpriseUsageTable({ days }: { days: number }) {
  const { t } = useTranslation();
  const format = useFormat();
  const [sort, setSort] = useState<{ by: UsageSort; descending: boolean }>({ by: 'storageBytes', descending: true });
  // Back to the first page when the dashboard's period changes.
  const [paged, setPaged] = useState({ days, page: 1 });
  const page = paged.days === days ? paged.page : 1;
  const setPage = (next: number) => setPaged({ days, page: next });
  const usage = useListEnterpriseUsage(
    { sort: sort.by, order: sort.descending ? 'desc' : 'asc', days, page, pageSize: PAGE_SIZE },
    { query: { placeholderData: keepPreviousData } },
  );

  const label = (figure: Figure) => t(`adminDashboard.usage.columns.${figure}`);
  const header = (by: UsageSort, text: string) => (
    <SortableTh
      key={by}
      active={sort.by === by}
      descending={sort.descending}
      // A new column starts with its largest first (names from A).
      firstDescending={by !== 'name'}
      onSort={(descending) => {
        setSort({ by, descending });
        setPage(1);
      }}
    >
      {text}
    </SortableTh>
  );

  const cell = (row: EnterpriseUsageSummary, figure: Figure) => {
    switch (figure) {
      case 'people':
        return row.limits.people !== undefined
          ? t('adminDashboard.usage.of', { used: format.number(row.people), limit: format.number(row.limits.people) })
          : format.number(row.people);
      case 'storageBytes':
        return row.limits.storageBytes !== undefined
          ? t('adminDashboard.usage.of', { used: format.bytes(row.storageBytes), limit: format.bytes(row.limits.storageBytes) })
          : format.bytes(row.storageBytes);
      case 'spreadsheetBytes':
      case 'exportBytes':
        return format.bytes(row[figure]);
      default:
        return format.number(row[figure]);
    }
  };

  const body = () => {
    if (usage.isPending) return <TableSkeleton />;
    if (usage.isError) return <QueryError error={usage.error} onRetry={() => void usage.refetch()} retrying={usage.isFetching} />;
    const { items, total } = usage.data;
    if (total === 0) return <EmptyMessage title={t('adminDashboard.usage.empty')} description={t('adminDashboard.usage.emptyHint')} />;
    return (
      <Stack gap="sm">
        <StackedTable striped aria-label={t('adminDashboard.usage.caption')} aria-busy={usage.isPlaceholderData} data-testid="enterprise-usage-table">
          <Table.Thead>
            <Table.Tr>
              {header('name', t('adminDashboard.usage.columns.name'))}
              {FIGURES.map((figure) => header(figure, label(figure)))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((row) => (
              <Table.Tr key={row.enterpriseId}>
                <Table.Td data-title>
                  <Anchor component={Link} to={href('adminEnterprise', { id: row.enterpriseId })} fw={600}>
                    {row.name}
                  </Anchor>
                  {row.isActive ? null : (
                    <Text size="xs" c="dimmed">
                      {t('common.status.inactive')}
                    </Text>
                  )}
                </Table.Td>
                {FIGURES.map((figure) => (
                  <Table.Td key={figure} data-label={label(figure)}>
                    {cell(row, figure)}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </StackedTable>
        <ListPagination page={page} pageSize={PAGE_SIZE} total={total} onChange={setPage} label={t('adminDashboard.usage.pages')} />
      </Stack>
    );
  };

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="enterprise-usage-overview">
      <Stack gap="md">
        <Title order={2} fz="xl" id="enterprise-usage-overview">
          {t('adminDashboard.usage.title')}
        </Title>
        <Text size="sm">{t('adminDashboard.usage.description', { count: days })}</Text>
        {body()}
      </Stack>
    </Card>
  );
}
