import { Anchor, Button, Card, Group, Loader, SimpleGrid, Stack, Text, Timeline, Title } from '@mantine/core';
import { IconFileText, IconHistory } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useGetCeoDashboard } from '@/api/generated/dashboards/dashboards';
import { Chart } from '@/components/charts/LazyChart';
import { QueryError } from '@/components/data/QueryError';
import { REVIEW_STATUSES, stackedStatusOption } from '@/lib/chart-options';
import { useFormat } from '@/lib/format';
import { href } from '@/lib/paths';
import { STATUS_COLORS } from '@/lib/report-rules';

/** The reports part of the CEO home: what waits for a decision, per department, and lately. */
export function CeoDashboardSection() {
  const { t } = useTranslation();
  const format = useFormat();
  const dashboard = useGetCeoDashboard();

  const heading = (
    <Group justify="space-between">
      <Title order={2} fz="xl" id="ceo-reports">
        {t('ceoDashboard.title')}
      </Title>
      <Button component={Link} to={href('ceoReports')} variant="light" leftSection={<IconFileText size={16} aria-hidden />}>
        {t('ceoDashboard.allReports')}
      </Button>
    </Group>
  );
  if (dashboard.isError) {
    return (
      <Stack gap="md" component="section" aria-labelledby="ceo-reports">
        {heading}
        <QueryError error={dashboard.error} onRetry={() => void dashboard.refetch()} retrying={dashboard.isFetching} />
      </Stack>
    );
  }
  const data = dashboard.data;
  const kpis = [
    { key: 'pending', label: t('ceoDashboard.pending'), value: data?.pendingReviews, to: `${href('ceoReports')}?status=submitted` },
    ...REVIEW_STATUSES.map((status) => ({
      key: status,
      // A count of reports: in French the word agrees (« Approuvés »).
      label: t(`reportCounts.${status}`),
      value: data?.totals[status],
      to: `${href('ceoReports')}?status=${status}`,
    })),
  ];

  return (
    <Stack gap="md" component="section" aria-labelledby="ceo-reports">
      {heading}
      <SimpleGrid cols={{ base: 2, sm: 3, md: 5 }} spacing="md" component="dl" m={0}>
        {kpis.map(({ key, label, value, to }) => (
          <Card key={key} withBorder radius="md" padding="md" data-testid={`ceo-kpi-${key}`}>
            <Text component="dt" size="sm" c="dimmed">
              <Anchor component={Link} to={to} inherit c="dimmed">
                {label}
              </Anchor>
            </Text>
            <Text component="dd" m={0} fz={28} fw={700} lh={1.2}>
              {value === undefined ? <Loader size="sm" role="status" aria-label={t('app.loading')} /> : format.number(value)}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
      {data && (
        <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
          <Card withBorder radius="md" padding="md">
            <Title order={3} fz="md" mb="sm">
              {t('ceoDashboard.byDepartment')}
            </Title>
            {data.departments.every((d) => REVIEW_STATUSES.every((status) => d.reports[status] === 0)) ? (
              <Text size="sm" c="dimmed" data-testid="ceo-chart-empty">
                {t('ceoDashboard.noReports')}
              </Text>
            ) : (
              <Chart
                option={stackedStatusOption(
                  data.departments.map((d) => ({ label: t(`departmentTypes.${d.type}`), reports: d.reports })),
                  (status) => t(`reportCounts.${status}`),
                )}
                label={t('ceoDashboard.byDepartment')}
                testId="ceo-chart"
              />
            )}
          </Card>
          <Card withBorder radius="md" padding="md">
            <Title order={3} fz="md" mb="sm">
              {t('ceoDashboard.recent')}
            </Title>
            {data.recentActivity.length === 0 ? (
              <Text size="sm" c="dimmed">
                {t('ceoDashboard.noActivity')}
              </Text>
            ) : (
              <Timeline bulletSize={20} lineWidth={2}>
                {data.recentActivity.map((item, index) => (
                  <Timeline.Item
                    key={`${item.reportId}-${index}`}
                    bullet={<IconHistory size={12} aria-hidden />}
                    color={STATUS_COLORS[item.toStatus]}
                    title={
                      <Anchor component={Link} to={href('ceoReport', { id: item.reportId })} size="sm" fw={500}>
                        {item.reportTitle}
                      </Anchor>
                    }
                  >
                    <Text size="xs" c="dimmed">
                      {item.fromStatus
                        ? t('reports.detail.transition', { from: t(`reportStatus.${item.fromStatus}`), to: t(`reportStatus.${item.toStatus}`) })
                        : t('reports.detail.created', { status: t(`reportStatus.${item.toStatus}`).toLocaleLowerCase() })}
                      {' · '}
                      {t('reports.detail.by', { name: item.actor?.fullName ?? t('reports.detail.deletedUser'), at: format.dateTime(item.at) })}
                    </Text>
                  </Timeline.Item>
                ))}
              </Timeline>
            )}
          </Card>
        </SimpleGrid>
      )}
    </Stack>
  );
}
