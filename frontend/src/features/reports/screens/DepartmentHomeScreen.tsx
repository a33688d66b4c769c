import { Anchor, Button, Card, Group, Loader, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconFileText, IconPlus } from '@tabler/icons-react';
import { useQueries } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useGetDepartment } from '@/api/generated/departments/departments';
import { getListDepartmentReportsQueryOptions, useListDepartmentReports } from '@/api/generated/reports/reports';
import { Chart } from '@/components/charts/LazyChart';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ReportStatusBadge } from '@/components/data/badges';
import { PageHeader } from '@/components/PageHeader';
import { LoadState } from '@/components/reports/ReportState';
import { statusBarOption } from '@/lib/chart-options';
import { useFormat } from '@/lib/format';
import { href } from '@/lib/paths';
import { REPORT_STATUSES } from '@/lib/report-rules';
import { useDepartmentRoute } from '../api';

export default function DepartmentHomeScreen() {
  const { t } = useTranslation();
  const format = useFormat();
  const { departmentId, own, user } = useDepartmentRoute();
  const department = useGetDepartment(user.enterpriseId ?? '', departmentId, { query: { enabled: own && Boolean(user.enterpriseId) } });
  // One row per status is enough to read its total.
  const counts = useQueries({
    queries: REPORT_STATUSES.map((status) => ({ ...getListDepartmentReportsQueryOptions(departmentId, { status, pageSize: 1 }), enabled: own })),
  });
  const latest = useListDepartmentReports(departmentId, { pageSize: 5 }, { query: { enabled: own } });
  const name = department.data ? t(`departmentTypes.${department.data.type}`) : t('reports.department.pageTitle');
  useDocumentTitle(`${name} · ${t('app.name')}`);

  const back = { to: href('dashboard'), label: t('reports.backToDashboard') };
  if (!own || !department.data) {
    return <LoadState query={own ? department : undefined} back={back} title={t('reports.department.pageTitle')} notFound={t('reports.department.notFound')} />;
  }

  const statusCounts = REPORT_STATUSES.map((status, index) => ({ status, label: t(`reportCounts.${status}`), value: counts[index].data?.total }));
  const loaded = statusCounts.every((c) => c.value !== undefined);
  const newReport = (
    <Button component={Link} to={href('departmentReportCreate', { id: departmentId })} leftSection={<IconPlus size={18} aria-hidden />}>
      {t('reports.new')}
    </Button>
  );

  return (
    <Stack gap="xl">
      <PageHeader
        title={name}
        description={department.data.description || t('reports.department.noDescription')}
        actions={
          <>
            {newReport}
            <Button
              component={Link}
              to={href('departmentReports', { id: departmentId })}
              variant="default"
              leftSection={<IconFileText size={18} aria-hidden />}
            >
              {t('reports.department.allReports')}
            </Button>
          </>
        }
      />
      <section aria-labelledby="department-counts">
        <Title order={2} fz="lg" mb="md" id="department-counts">
          {t('reports.department.byStatus')}
        </Title>
        <SimpleGrid cols={{ base: 2, sm: 3, md: 5 }} spacing="md" component="dl" m={0}>
          {statusCounts.map(({ status, label, value }) => (
            <Card key={status} withBorder radius="md" padding="md" data-testid={`count-${status}`}>
              <Text component="dt" size="sm" c="dimmed">
                {label}
              </Text>
              <Text component="dd" m={0} fz={28} fw={700} lh={1.2}>
                {value === undefined ? <Loader size="sm" role="status" aria-label={t('app.loading')} /> : format.number(value)}
              </Text>
            </Card>
          ))}
        </SimpleGrid>
        {loaded && (
          <Card withBorder radius="md" padding="md" mt="md">
            <Chart option={statusBarOption(statusCounts.map((c) => ({ ...c, value: c.value ?? 0 })))} label={t('reports.department.chartLabel')} height={220} />
          </Card>
        )}
      </section>
      <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="department-latest">
        <Stack gap="md">
          <Title order={2} fz="lg" id="department-latest">
            {t('reports.department.latest')}
          </Title>
          {latest.data && latest.data.items.length === 0 ? (
            <EmptyMessage title={t('reports.list.empty')} description={t('reports.list.emptyHint')} action={newReport} />
          ) : (
            <Table verticalSpacing="xs">
              <Table.Tbody>
                {latest.data?.items.map((report) => (
                  <Table.Tr key={report.id}>
                    <Table.Td>
                      <Anchor component={Link} to={href('departmentReport', { id: departmentId, reportId: report.id })}>
                        {report.title}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <ReportStatusBadge status={report.status} />
                    </Table.Td>
                    <Table.Td>{format.dateTime(report.updatedAt)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          <Group>
            <Anchor component={Link} to={href('departmentReports', { id: departmentId })}>
              {t('reports.department.allReports')}
            </Anchor>
          </Group>
        </Stack>
      </Card>
    </Stack>
  );
}
