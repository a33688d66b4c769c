import { Button, Card, Stack } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { keepPreviousData } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useListDepartmentReports } from '@/api/generated/reports/reports';
import { PageHeader } from '@/components/PageHeader';
import { REPORT_FILTER_KEYS, ReportFilters, ReportTable, reportQueryParams } from '@/components/reports/ReportList';
import { LoadState } from '@/components/reports/ReportState';
import { useListParams } from '@/lib/list-params';
import { href } from '@/lib/paths';
import { REPORT_STATUSES } from '@/lib/report-rules';
import { useDepartmentRoute } from '../api';

export default function DepartmentReportsScreen() {
  const { t } = useTranslation();
  const { departmentId, own } = useDepartmentRoute();
  const list = useListParams(REPORT_FILTER_KEYS);
  const reports = useListDepartmentReports(departmentId, reportQueryParams(list, REPORT_STATUSES), {
    query: { enabled: own, placeholderData: keepPreviousData },
  });
  useDocumentTitle(`${t('reports.list.title')} · ${t('app.name')}`);

  if (!own) {
    return (
      <LoadState
        back={{ to: href('dashboard'), label: t('reports.backToDashboard') }}
        title={t('reports.list.title')}
        notFound={t('reports.department.notFound')}
      />
    );
  }
  const newReport = (
    <Button component={Link} to={href('departmentReportCreate', { id: departmentId })} leftSection={<IconPlus size={18} aria-hidden />}>
      {t('reports.new')}
    </Button>
  );
  return (
    <Stack gap="lg">
      <PageHeader
        title={t('reports.list.title')}
        description={t('reports.list.departmentDescription')}
        back={{ to: href('department', { id: departmentId }), label: t('reports.backToDepartment') }}
        actions={newReport}
      />
      <Card withBorder radius="md" padding="lg">
        <Stack gap="md">
          <ReportFilters list={list} statuses={REPORT_STATUSES} busy={reports.isFetching && !reports.isPending} />
          <ReportTable
            query={reports}
            list={list}
            linkTo={(report) => href('departmentReport', { id: departmentId, reportId: report.id })}
            emptyAction={newReport}
          />
        </Stack>
      </Card>
    </Stack>
  );
}
