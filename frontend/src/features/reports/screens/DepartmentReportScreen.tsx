import { Button } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconPencil, IconSend, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { useGetReport } from '@/api/generated/reports/reports';
import { ReportDetailView } from '@/components/reports/ReportDetailView';
import { LoadState } from '@/components/reports/ReportState';
import { errorMessage } from '@/lib/errors';
import { href } from '@/lib/paths';
import { canModify } from '@/lib/report-rules';
import { useDeleteReportMutation, useDepartmentRoute, useUpdateReportMutation } from '../api';

export default function DepartmentReportScreen() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { departmentId, reportId, own, user } = useDepartmentRoute();
  const report = useGetReport(reportId, undefined, { query: { enabled: own } });
  const update = useUpdateReportMutation();
  const remove = useDeleteReportMutation();
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
        onSuccess: () => notifications.show({ color: 'teal', message: t('reports.detail.submitted') }),
        onError: (error) => notifications.show({ color: 'red', title: t('reports.form.updateFailed'), message: errorMessage(error, t) }),
      },
    );

  const askDelete = () =>
    modals.openConfirmModal({
      title: t('reports.delete.title'),
      children: t('reports.delete.confirm'),
      labels: { confirm: t('common.delete'), cancel: t('common.cancel') },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        remove.mutate(
          { id: current.id },
          {
            onSuccess: () => {
              notifications.show({ color: 'teal', message: t('reports.delete.success') });
              navigate(back.to, { replace: true });
            },
            onError: (error) => notifications.show({ color: 'red', title: t('reports.delete.failed'), message: errorMessage(error, t) }),
          },
        ),
    });

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
