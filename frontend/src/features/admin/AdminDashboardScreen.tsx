import { Anchor, Card, Group, Loader, SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useGetAdminDashboard, useGetAdminStatistics } from '@/api/generated/dashboards/dashboards';
import { Chart } from '@/components/charts/LazyChart';
import { QueryError } from '@/components/data/QueryError';
import { PageHeader } from '@/components/PageHeader';
import { REVIEW_STATUSES, STATUS_CHART_COLORS, dailyOption } from '@/lib/chart-options';
import { useFormat } from '@/lib/format';
import { href } from '@/lib/paths';
import { PlatformSecurityCard } from '@/components/security-policy/SecurityPolicyCards';
import { EnterpriseUsageTable } from './EnterpriseUsageTable';

const RANGES = ['7', '30', '90'] as const;

function Kpis({ title, items }: { title: string; items: { label: string; value: number | undefined; to?: string }[] }) {
  const { t } = useTranslation();
  const format = useFormat();
  return (
    <Card withBorder radius="md" padding="md">
      <Title order={2} fz="md" mb="sm">
        {title}
      </Title>
      {/* Two figures a row where the card is wide enough for long labels (in French), one otherwise. */}
      <SimpleGrid type="container" cols={{ base: 1, '18rem': 2 }} spacing="sm" component="dl" m={0}>
        {items.map(({ label, value, to }) => (
          <div key={label}>
            <Text component="dt" size="sm" c="dimmed">
              {to ? (
                <Anchor component={Link} to={to} inherit>
                  {label}
                </Anchor>
              ) : (
                label
              )}
            </Text>
            <Text component="dd" m={0} fz={24} fw={700}>
              {value === undefined ? <Loader size="xs" role="status" aria-label={t('app.loading')} /> : format.number(value)}
            </Text>
          </div>
        ))}
      </SimpleGrid>
    </Card>
  );
}

export default function AdminDashboardScreen() {
  const { t } = useTranslation();
  const format = useFormat();
  const [range, setRange] = useState<(typeof RANGES)[number]>('30');
  const dashboard = useGetAdminDashboard();
  const stats = useGetAdminStatistics({ days: Number(range) }, { query: { placeholderData: keepPreviousData } });
  useDocumentTitle(`${t('adminDashboard.pageTitle')} · ${t('app.name')}`);
  const d = dashboard.data;
  const days = stats.data?.days ?? [];
  const dates = days.map((day) => format.day(day.date));

  return (
    <Stack gap="xl">
      <PageHeader title={t('adminDashboard.title')} description={t('adminDashboard.description')} />
      {dashboard.isError && <QueryError error={dashboard.error} onRetry={() => void dashboard.refetch()} retrying={dashboard.isFetching} />}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="md">
        <Kpis
          title={t('adminDashboard.enterprises')}
          items={[
            { label: t('common.status.active'), value: d?.enterprises.active, to: `${href('adminEnterprises')}?status=active` },
            { label: t('common.status.inactive'), value: d?.enterprises.inactive, to: `${href('adminEnterprises')}?status=inactive` },
          ]}
        />
        <Kpis
          title={t('adminDashboard.users')}
          items={[
            { label: t('roles.PlatformAdmin'), value: d?.usersByRole.platformAdmin },
            { label: t('roles.EnterpriseCeo'), value: d?.usersByRole.enterpriseCeo },
            { label: t('roles.DepartmentHead'), value: d?.usersByRole.departmentHead },
            { label: t('roles.DepartmentUser'), value: d?.usersByRole.departmentUser },
          ]}
        />
        <Kpis
          title={t('adminDashboard.reports')}
          items={REVIEW_STATUSES.map((status) => ({ label: t(`reportCounts.${status}`), value: d?.reportsByStatus[status] }))}
        />
        <Kpis title={t('adminDashboard.sessions')} items={[{ label: t('adminDashboard.activeSessions'), value: d?.activeSessions }]} />
      </SimpleGrid>

      <Stack gap="md" component="section" aria-labelledby="admin-activity">
        <Group justify="space-between">
          <Title order={2} fz="xl" id="admin-activity">
            {t('adminDashboard.activity')}
          </Title>
          <SegmentedControl
            aria-label={t('adminDashboard.range')}
            value={range}
            onChange={(value) => setRange(value as typeof range)}
            data={RANGES.map((value) => ({ value, label: t('adminDashboard.days', { count: Number(value) }) }))}
          />
        </Group>
        {stats.isError ? (
          <QueryError error={stats.error} onRetry={() => void stats.refetch()} retrying={stats.isFetching} />
        ) : (
          <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
            {/* One measure per chart: sign-ins (hundreds) would flatten enterprises created (a few). */}
            <Card withBorder radius="md" padding="md">
              <Title order={3} fz="md" mb="sm">
                {t('adminDashboard.signIns')}
              </Title>
              <Chart
                label={t('adminDashboard.signIns')}
                option={dailyOption(dates, [{ name: t('adminDashboard.signIns'), data: days.map((day) => day.signIns) }])}
                testId="admin-chart-activity"
              />
            </Card>
            <Card withBorder radius="md" padding="md">
              <Title order={3} fz="md" mb="sm">
                {t('adminDashboard.enterprisesPerDay')}
              </Title>
              <Chart
                label={t('adminDashboard.enterprisesPerDay')}
                option={dailyOption(dates, [{ name: t('adminDashboard.enterprisesCreated'), data: days.map((day) => day.enterprisesCreated) }], 'bar')}
                testId="admin-chart-enterprises"
              />
            </Card>
            <Card withBorder radius="md" padding="md">
              <Title order={3} fz="md" mb="sm">
                {t('adminDashboard.reportsPerDay')}
              </Title>
              <Chart
                label={t('adminDashboard.reportsPerDay')}
                option={dailyOption(
                  dates,
                  REVIEW_STATUSES.map((status) => ({
                    name: t(`reportCounts.${status}`),
                    data: days.map((day) => day.reports[status]),
                    color: STATUS_CHART_COLORS[status],
                  })),
                  'bar',
                )}
                testId="admin-chart-reports"
              />
            </Card>
          </SimpleGrid>
        )}
      </Stack>

      <EnterpriseUsageTable days={Number(range)} />

      <PlatformSecurityCard />
    </Stack>
  );
}
