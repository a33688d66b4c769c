import { Button } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconPencil, IconSend, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { useGetReport } from '@/api/generated/reports/reports';
import { ReportDetailView } from '@/components/reports/ReportDetailView';
import { LoadState } from '@/components/reports/ReportState';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notify';
import { href } from '@/lib/paths';
import { canModify } from '@/lib/report-rules';
import { useDeleteReportMutation, useDepartmentRoute, useUpdateReportMutation } from '../api';
import { confirmDeleteReport } from '../components/report-confirmations';

export default function DepartmentReportScreen() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { departmentId, reportId, own, user } = useDepartmentRoute();
  const remove = useDeleteReportMutation();
  // Once it is being deleted the report is not read again: its query is forgotten, not refetched.
  const deleting = remove.isPending || remove.isSuccess;
  const report = useGetReport(reportId, undefined, { query: { enabled: own && !deleting } });
  const update = useUpdateReportMutation();
  useDocumentTitle(`${report.data?.title ?? t('reports.detail.pageTitle')} · ${t('app.name')}`);
  const back = { to: href('departmentReports', { id: departmentId }), label: t('reports.backToList') };

  if (!own || !report.data || report.data.departmentId !== departmentId) {
    return (
      <LoadState query={own && !report.data ? report : undefined} back={back} title={t('reports.detail.pageTitle')} notFound={t('reports.detail.notFound')} />
    );
  }
  const current = report.data;
  const modifiable = canModify(current, user);

  const submit = () =>
    update.mutate(
      { id: current.id, data: { status: 'submitted' } },
      {
        onSuccess: () => notify.success(`report.update:${current.id}`, t('reports.detail.submitted')),
        onError: (error) => notify.failure(`report.update:${current.id}`, t('reports.form.updateFailed'), errorMessage(error, t)),
      },
    );

  const askDelete = () =>
    confirmDeleteReport(current, t, () =>
      remove.mutate(
        { id: current.id },
        {
          onSuccess: () => {
            notify.success(`report.delete:${current.id}`, t('reports.delete.success'));
            navigate(back.to, { replace: true });
          },
          onError: (error) => notify.failure(`report.delete:${current.id}`, t('reports.delete.failed'), errorMessage(error, t)),
        },
      ),
    );

  return (
    <ReportDetailView
      report={current}
      back={back}
      actions={
        modifiable && (
          <>
            <Button
              component={Link}
              to={href('departmentReportEdit', { id: departmentId, reportId: current.id })}
              variant="default"
              leftSection={<IconPencil size={16} aria-hidden />}
            >
              {t('common.edit')}
            </Button>
            <Button leftSection={<IconSend size={16} aria-hidden />} onClick={submit} loading={update.isPending}>
              {t('reports.form.submit')}
            </Button>
            <Button variant="light" color="red" leftSection={<IconTrash size={16} aria-hidden />} onClick={askDelete} loading={remove.isPending}>
              {t('common.delete')}
            </Button>
          </>
        )
      }
    />
  );
}
