import { Button, Card, Group, Progress, SegmentedControl, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { IconAdjustments } from '@tabler/icons-react';
import { Fragment, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useGetEnterpriseUsage } from '@/api/generated/enterprises/enterprises';
import type { UsageDay, UsageLimits, UsageNow } from '@/api/generated/model';
import { Chart } from '@/components/charts/LazyChart';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { SortableTh } from '@/components/data/SortableTh';
import { StackedTable } from '@/components/data/StackedTable';
import { dailyOption } from '@/lib/chart-options';
import { useFormat } from '@/lib/format';
import { EnterpriseLimitsModal } from './EnterpriseLimitsModal';

/** The spans the card shows, in days up to today (UTC). */
const SPANS = ['30', '90', '365'] as const;
type Span = (typeof SPANS)[number];
/** The daily counts, as the table and the chart name them. */
const COUNTS = ['apiCalls', 'signIns', 'emails', 'exports'] as const;
type Column = 'date' | (typeof COUNTS)[number];
const ROWS_PER_PAGE = 10;

/** `YYYY-MM-DD`, `days - 1` days before today (UTC): the first day of a span. */
function spanStart(days: number): string {
  return new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
}

/** One measure of what the enterprise holds, with its limit when it has one. */
function Meter({ label, value, used, limit, testId }: { label: string; value: string; used?: number; limit?: number; testId: string }) {
  const ratio = used !== undefined && limit ? Math.min(100, (used / limit) * 100) : null;
  return (
    <Card withBorder radius="md" padding="sm" data-testid={testId}>
      <Text component="dt" size="sm" c="dimmed">
        {label}
      </Text>
      <Text component="dd" m={0} fw={700} fz="lg">
        {value}
      </Text>
      {ratio !== null ? (
        <Progress value={ratio} color={ratio >= 100 ? 'red' : ratio >= 80 ? 'orange' : 'blue'} mt={6} aria-label={`${label}: ${value}`} />
      ) : null}
    </Card>
  );
}

/**
 * What an enterprise uses (`GET /enterprises/{id}/usage`): what it holds now against its limits
 * ("3 of 50 people"), and its daily counts as a chart and as a table that sorts. On the CEO's home
 * and on the platform admin's page of the enterprise, where the limits can be changed.
 */
export function EnterpriseUsageCard({ enterpriseId, canEditLimits = false }: { enterpriseId: string; canEditLimits?: boolean }) {
  const { t } = useTranslation();
  const format = useFormat();
  const [span, setSpan] = useState<Span>('30');
  const usage = useGetEnterpriseUsage(enterpriseId, { from: spanStart(Number(span)) });
  const [view, setView] = useState<'chart' | 'table'>('chart');
  const [sort, setSort] = useState<{ column: Column; descending: boolean }>({ column: 'date', descending: true });
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState(false);

  const rows = useMemo(() => {
    const days = [...(usage.data?.daily ?? [])];
    const value = (day: UsageDay, column: Column) => (column === 'date' ? day.date : day[column]);
    days.sort((a, b) => {
      const [x, y] = [value(a, sort.column), value(b, sort.column)];
      const order = x < y ? -1 : x > y ? 1 : a.date < b.date ? -1 : 1;
      return sort.descending ? -order : order;
    });
    return days;
  }, [usage.data, sort]);

  const titleId = `enterprise-usage-${enterpriseId}`;
  const label = (count: (typeof COUNTS)[number]) => t(`enterprises.usage.counts.${count}`);

  const meters = (current: UsageNow, limits: UsageLimits) => {
    const people =
      limits.people !== undefined
        ? t('enterprises.usage.peopleOf', { count: current.people, used: format.number(current.people), limit: format.number(limits.people) })
        : format.number(current.people);
    const storage =
      limits.storageBytes !== undefined
        ? t('enterprises.usage.storageOf', { used: format.bytes(current.storageBytes), limit: format.bytes(limits.storageBytes) })
        : format.bytes(current.storageBytes);
    const calls =
      limits.apiCallsPerMinute !== undefined
        ? t('enterprises.usage.perMinute', { count: limits.apiCallsPerMinute, n: format.number(limits.apiCallsPerMinute) })
        : t('enterprises.usage.noLimit');
    return (
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="sm" component="dl" m={0}>
        <Meter label={t('enterprises.usage.people')} value={people} used={current.people} limit={limits.people} testId="usage-people" />
        <Meter label={t('enterprises.usage.storage')} value={storage} used={current.storageBytes} limit={limits.storageBytes} testId="usage-storage" />
        <Meter label={t('enterprises.usage.apiLimit')} value={calls} testId="usage-api-limit" />
        <Meter label={t('enterprises.usage.activeSessions')} value={format.number(current.activeSessions)} testId="usage-sessions" />
        <Meter label={t('enterprises.usage.reports')} value={format.number(current.reports)} testId="usage-reports" />
        <Meter label={t('enterprises.usage.spreadsheets')} value={format.number(current.spreadsheets)} testId="usage-spreadsheets" />
      </SimpleGrid>
    );
  };

  // A new column starts with its largest (or newest) first.
  const header = (column: Column, text: string) => (
    <SortableTh
      active={sort.column === column}
      descending={sort.descending}
      onSort={(descending) => {
        setSort({ column, descending });
        setPage(1);
      }}
    >
      {text}
    </SortableTh>
  );

  const daily = (days: UsageDay[]) => {
    if (view === 'chart') {
      const option = dailyOption(
        days.map((d) => format.day(d.date)),
        COUNTS.map((count) => ({ name: label(count), data: days.map((d) => d[count]) })),
      );
      return <Chart option={option} label={t('enterprises.usage.chartLabel')} testId="usage-chart" />;
    }
    const shown = rows.slice((page - 1) * ROWS_PER_PAGE, page * ROWS_PER_PAGE);
    return (
      <Stack gap="xs">
        <StackedTable striped aria-label={t('enterprises.usage.tableLabel')}>
          <Table.Thead>
            <Table.Tr>
              {header('date', t('enterprises.usage.date'))}
              {COUNTS.map((count) => (
                <Fragment key={count}>{header(count, label(count))}</Fragment>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((day) => (
              <Table.Tr key={day.date}>
                <Table.Td data-title>{format.day(day.date)}</Table.Td>
                {COUNTS.map((count) => (
                  <Table.Td key={count} data-label={label(count)}>
                    {format.number(day[count])}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </StackedTable>
        <ListPagination page={page} pageSize={ROWS_PER_PAGE} total={rows.length} onChange={setPage} label={t('enterprises.usage.pages')} />
      </Stack>
    );
  };

  const body = () => {
    if (usage.isPending) return <Text c="dimmed">{t('app.loading')}</Text>;
    if (usage.isError) return <QueryError error={usage.error} onRetry={() => void usage.refetch()} retrying={usage.isFetching} />;
    const data = usage.data;
    return (
      <Stack gap="md">
        {meters(data.current, data.limits)}
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Title order={3} fz="md">
            {t('enterprises.usage.daily')}
          </Title>
          <Group gap="sm" wrap="wrap">
            <SegmentedControl
              size="xs"
              value={span}
              onChange={(value) => {
                setSpan(value as Span);
                setPage(1);
              }}
              data={SPANS.map((days) => ({ value: days, label: t('enterprises.usage.span', { count: Number(days) }) }))}
              aria-label={t('enterprises.usage.spanLabel')}
            />
            <SegmentedControl
              size="xs"
              value={view}
              onChange={(value) => setView(value as 'chart' | 'table')}
              data={[
                { value: 'chart', label: t('enterprises.usage.asChart') },
                { value: 'table', label: t('enterprises.usage.asTable') },
              ]}
              aria-label={t('enterprises.usage.viewLabel')}
            />
          </Group>
        </Group>
        {data.daily.every((d) => COUNTS.every((count) => d[count] === 0)) ? (
          <Text size="sm" c="dimmed" data-testid="usage-empty">
            {t('enterprises.usage.nothingYet')}
          </Text>
        ) : (
          daily(data.daily)
        )}
      </Stack>
    );
  };

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby={titleId}>
      <Stack gap="md">
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Title order={2} fz="lg" id={titleId}>
            {t('enterprises.usage.title')}
          </Title>
          {canEditLimits && usage.data ? (
            <Button variant="light" leftSection={<IconAdjustments size={18} aria-hidden />} onClick={() => setEditing(true)}>
              {t('enterprises.usage.editLimits')}
            </Button>
          ) : null}
        </Group>
        <Text size="sm">{t('enterprises.usage.description')}</Text>
        {body()}
      </Stack>
      {canEditLimits && usage.data ? (
        <EnterpriseLimitsModal enterpriseId={enterpriseId} own={usage.data.ownLimits} opened={editing} onClose={() => setEditing(false)} />
      ) : null}
    </Card>
  );
}
