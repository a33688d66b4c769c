import { Anchor, Button, Group, Loader, Select, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { IconFileText } from '@tabler/icons-react';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { type PageReport, type Report, type ReportStatus, ReportSort } from '@/api/generated/model';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { SearchInput } from '@/components/data/SearchInput';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { DateField } from '@/components/forms/DateField';
import { ReportStatusBadge } from '@/components/data/badges';
import { useFormat } from '@/lib/format';
import { PAGE_SIZE, oneOf, useListParams } from '@/lib/list-params';

export const REPORT_FILTER_KEYS = ['status', 'q', 'from', 'to', 'sort', 'departmentId'] as const;
const SORTS = Object.values(ReportSort);
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A text that must not wrap (a day, a moment): its spaces made no-break spaces. */
const whole = (text: string) => text.replace(/ /g, '\u00a0');
/** A moment that may wrap between its day and its time, never inside either ("Dec 2, 2026," / "2:38 AM"). */
const dayThenTime = (text: string) => {
  const parts = /^(.*?\d{4})(\D*?)(\d.*)$/.exec(text);
  return parts ? `${whole(parts[1])}${parts[2]}${whole(parts[3])}` : whole(text);
};

export type ReportListParams = ReturnType<typeof useListParams<(typeof REPORT_FILTER_KEYS)[number]>>;

/** The filters in the URL, checked, as the list calls take them. */
export function reportQueryParams(list: ReportListParams, statuses: readonly ReportStatus[]) {
  const { values } = list;
  return {
    status: oneOf(values.status, statuses),
    q: values.q || undefined,
    from: DATE.test(values.from) ? values.from : undefined,
    to: DATE.test(values.to) ? values.to : undefined,
    sort: oneOf(values.sort, SORTS),
    page: list.page,
    pageSize: PAGE_SIZE,
  };
}

type FiltersProps = {
  list: ReportListParams;
  statuses: readonly ReportStatus[];
  /** Offers a department filter when given. */
  departments?: { value: string; label: string }[];
  busy?: boolean;
};

export function ReportFilters({ list, statuses, departments, busy }: FiltersProps) {
  const { t } = useTranslation();
  const params = reportQueryParams(list, statuses);
  return (
    <Group align="flex-end" gap="md" wrap="wrap">
      <SearchInput
        value={list.values.q}
        onSearch={(q) => list.update({ q })}
        label={t('reports.list.search')}
        placeholder={t('reports.list.searchPlaceholder')}
      />
      {departments && (
        <Select
          label={t('reports.fields.department')}
          placeholder={t('reports.list.allDepartments')}
          data={departments}
          value={list.values.departmentId || null}
          onChange={(value) => list.update({ departmentId: value })}
          clearable
          w={220}
        />
      )}
      <Select
        label={t('reports.fields.status')}
        placeholder={t('reports.list.allStatuses')}
        data={statuses.map((value) => ({ value, label: t(`reportStatus.${value}`) }))}
        value={params.status ?? null}
        onChange={(value) => list.update({ status: value })}
        clearable
        w={170}
      />
      <DateField label={t('reports.list.from')} value={params.from ?? ''} onChange={(from) => list.update({ from })} max={params.to} clearable w={170} />
      <DateField label={t('reports.list.to')} value={params.to ?? ''} onChange={(to) => list.update({ to })} min={params.from} clearable w={170} />
      <Select
        label={t('reports.list.sort')}
        data={SORTS.map((value) => ({ value, label: t(`reports.sort.${value}`) }))}
        value={params.sort ?? '-createdAt'}
        onChange={(value) => list.update({ sort: value === '-createdAt' ? null : value })}
        allowDeselect={false}
        w={200}
      />
      {busy && <Loader size="sm" role="status" aria-label={t('app.loading')} />}
    </Group>
  );
}

type TableProps = {
  query: UseQueryResult<PageReport, unknown>;
  list: ReportListParams;
  linkTo: (report: Report) => string;
  /** Adds a department column when given. */
  departmentName?: (id: string) => string;
  /** Shown (with the hint) when there are no reports at all. */
  emptyAction?: ReactNode;
};

export function ReportTable({ query, list, linkTo, departmentName, emptyAction }: TableProps) {
  const { t } = useTranslation();
  const format = useFormat();
  if (query.isPending) return <TableSkeleton />;
  if (query.isError) return <QueryError error={query.error} onRetry={() => void query.refetch()} retrying={query.isFetching} />;
  const { items, total, pageSize } = query.data;
  if (items.length === 0) {
    return list.filtered ? (
      <EmptyMessage
        icon={<IconFileText size={32} aria-hidden />}
        title={t('reports.list.noMatch')}
        action={
          <Button variant="default" onClick={list.reset}>
            {t('common.clearFilters')}
          </Button>
        }
      />
    ) : (
      <EmptyMessage
        icon={<IconFileText size={32} aria-hidden />}
        title={t('reports.list.empty')}
        description={t('reports.list.emptyHint')}
        action={emptyAction}
      />
    );
  }
  return (
    <Stack gap="md">
      {/* It fits at 800 px (a period and a moment take two lines there): under 680 px it scrolls. */}
      <Table.ScrollContainer minWidth={680}>
        <Table highlightOnHover verticalSpacing="sm">
          <VisuallyHidden component="caption">{t('reports.list.caption')}</VisuallyHidden>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('reports.fields.title')}</Table.Th>
              {departmentName && <Table.Th scope="col">{t('reports.fields.department')}</Table.Th>}
              <Table.Th scope="col">{t('reports.fields.status')}</Table.Th>
              <Table.Th scope="col">{t('reports.fields.period')}</Table.Th>
              <Table.Th scope="col">{t('reports.fields.author')}</Table.Th>
              <Table.Th scope="col">{t('reports.fields.updatedAt')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((report) => (
              <Table.Tr key={report.id} data-testid="report-row">
                <Table.Td>
                  <Anchor component={Link} to={linkTo(report)} fw={500} style={{ overflowWrap: 'anywhere' }}>
                    {report.title}
                  </Anchor>
                </Table.Td>
                {departmentName && <Table.Td>{departmentName(report.departmentId)}</Table.Td>}
                <Table.Td>
                  <ReportStatusBadge status={report.status} />
                </Table.Td>
                <Table.Td>
                  {/* Wrapped at the dash if need be, never inside a day ("Jun 30, / 2026"). */}
                  <Text size="sm">{t('reports.periodRange', { start: whole(format.day(report.periodStart)), end: whole(format.day(report.periodEnd)) })}</Text>
                </Table.Td>
                <Table.Td>{report.createdBy.fullName}</Table.Td>
                <Table.Td>{dayThenTime(format.dateTime(report.updatedAt))}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <ListPagination page={list.page} pageSize={pageSize} total={total} onChange={list.setPage} label={t('reports.list.pages')} />
    </Stack>
  );
}
