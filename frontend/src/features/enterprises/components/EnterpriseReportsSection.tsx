import { Card, Stack, Title } from '@mantine/core';
import { keepPreviousData } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { Department } from '@/api/generated/model';
import { useListEnterpriseReports } from '@/api/generated/reports/reports';
import { REPORT_FILTER_KEYS, ReportFilters, ReportTable, reportQueryParams } from '@/components/reports/ReportList';
import { useListParams } from '@/lib/list-params';
import { href } from '@/lib/paths';
import { REVIEWABLE_STATUSES } from '@/lib/report-rules';

/** The admin's read-only view of an enterprise's reports (never drafts); filters in the URL. */
export function EnterpriseReportsSection({ enterpriseId, departments }: { enterpriseId: string; departments: Department[] }) {
  const { t } = useTranslation();
  const list = useListParams(REPORT_FILTER_KEYS);
  const options = departments.map((d) => ({ value: d.id, label: t(`departmentTypes.${d.type}`) }));
  const departmentId = options.some((o) => o.value === list.values.departmentId) ? list.values.departmentId : undefined;
  const reports = useListEnterpriseReports(
    enterpriseId,
    { ...reportQueryParams(list, REVIEWABLE_STATUSES), departmentId },
    { query: { placeholderData: keepPreviousData } },
  );
  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="enterprise-reports">
      <Stack gap="md">
        <Title order={2} fz="lg" id="enterprise-reports">
          {t('enterprises.detail.reports')}
        </Title>
        <ReportFilters list={list} statuses={REVIEWABLE_STATUSES} departments={options} busy={reports.isFetching && !reports.isPending} />
        <ReportTable
          query={reports}
          list={list}
          linkTo={(report) => `${href('ceoReport', { id: report.id })}?enterpriseId=${encodeURIComponent(enterpriseId)}`}
          departmentName={(id) => options.find((o) => o.value === id)?.label ?? '—'}
        />
      </Stack>
    </Card>
  );
}
