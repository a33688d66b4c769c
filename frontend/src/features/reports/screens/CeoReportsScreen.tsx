import { Card, Stack } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { keepPreviousData } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useListCeoReports } from '@/api/generated/dashboards/dashboards';
import { useListEnterpriseDepartments } from '@/api/generated/enterprises/enterprises';
import { PageHeader } from '@/components/PageHeader';
import { REPORT_FILTER_KEYS, ReportFilters, ReportTable, reportQueryParams } from '@/components/reports/ReportList';
import { useListParams } from '@/lib/list-params';
import { href } from '@/lib/paths';
import { REVIEWABLE_STATUSES } from '@/lib/report-rules';
import { useCurrentUser } from '@/lib/session';

export default function CeoReportsScreen() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const list = useListParams(REPORT_FILTER_KEYS);
  const departments = useListEnterpriseDepartments(user.enterpriseId ?? '', { query: { enabled: Boolean(user.enterpriseId) } });
  const options = (departments.data ?? []).map((d) => ({ value: d.id, label: t(`departmentTypes.${d.type}`) }));
  const departmentId = options.some((o) => o.value === list.values.departmentId) ? list.values.departmentId : undefined;
  const reports = useListCeoReports({ ...reportQueryParams(list, REVIEWABLE_STATUSES), departmentId }, { query: { placeholderData: keepPreviousData } });
  useDocumentTitle(`${t('reports.list.title')} · ${t('app.name')}`);

  return (
    <Stack gap="lg">
      <PageHeader
        title={t('reports.list.title')}
        description={t('reports.list.ceoDescription')}
        back={{ to: href('ceo'), label: t('reports.backToEnterprise') }}
      />
      <Card withBorder radius="md" padding="lg">
        <Stack gap="md">
          <ReportFilters list={list} statuses={REVIEWABLE_STATUSES} departments={options} busy={reports.isFetching && !reports.isPending} />
          <ReportTable
            query={reports}
            list={list}
            linkTo={(report) => href('ceoReport', { id: report.id })}
            departmentName={(id) => options.find((o) => o.value === id)?.label ?? '—'}
          />
        </Stack>
      </Card>
    </Stack>
  );
}
