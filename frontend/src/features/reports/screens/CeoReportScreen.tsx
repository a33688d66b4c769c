import { Button, Card, Group, Stack, Text, Textarea, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { modals } from '@mantine/modals';
import { IconCheck, IconEye, IconListSearch, IconX } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import type { ReportDetail } from '@/api/generated/model';
import { useGetReport } from '@/api/generated/reports/reports';
import { isApiRequestError } from '@/api/mutator';
import { ReportDetailView } from '@/components/reports/ReportDetailView';
import { LoadState } from '@/components/reports/ReportState';
import { errorMessage, fieldErrorMessage } from '@/lib/errors';
import { notify } from '@/lib/notify';
import { auditLogHref, href } from '@/lib/paths';
import { reviewChoices } from '@/lib/report-rules';
import { useCurrentUser } from '@/lib/session';
import { useReviewReportMutation } from '../api';

/**
 * /ceo/reports/:id: the CEO reads and reviews; the platform admin reads any enterprise's report
 * by its id (the server finds its enterprise). A link from an enterprise's page says which one
 * (`?enterpriseId=`), for the way back.
 */
export default function CeoReportScreen() {
  const { t } = useTranslation();
  const { id = '' } = useParams<'id'>();
  const [search] = useSearchParams();
  const user = useCurrentUser();
  const isAdmin = user.role === 'PlatformAdmin';
  const enterpriseId = (isAdmin && search.get('enterpriseId')) || undefined;
  const report = useGetReport(id, enterpriseId ? { enterpriseId } : undefined);
  useDocumentTitle(`${report.data?.title ?? t('reports.detail.pageTitle')} · ${t('app.name')}`);
  const back = !isAdmin
    ? { to: href('ceoReports'), label: t('reports.backToList') }
    : enterpriseId
      ? { to: href('adminEnterprise', { id: enterpriseId }), label: t('reports.backToEnterprise') }
      : { to: href('adminEnterprises'), label: t('enterprises.backToList') };

  if (!report.data) {
    return <LoadState query={report} back={back} title={t('reports.detail.pageTitle')} notFound={t('reports.detail.notFound')} />;
  }
  const auditLink = auditLogHref(user.role, report.data.id);
  return (
    <ReportDetailView
      report={report.data}
      back={back}
      enterpriseId={enterpriseId}
      actions={
        auditLink && (
          <Button component={Link} to={auditLink} variant="default" leftSection={<IconListSearch size={16} aria-hidden />}>
            {t('audit.link')}
          </Button>
        )
      }
    >
      {!isAdmin && reviewChoices(report.data.status).length > 0 && <ReviewPanel report={report.data} />}
    </ReportDetailView>
  );
}

function ReviewPanel({ report }: { report: ReportDetail }) {
  const { t } = useTranslation();
  const review = useReviewReportMutation();
  const [notes, setNotes] = useState('');
  const [notesError, setNotesError] = useState<string | null>(null);
  const choices = reviewChoices(report.status);

  // The outcome is told from the request's own promise, not from `mutate`'s callbacks: once the
  // report reads as reviewed (its live update may come before the answer) this panel is gone,
  // and react-query drops the callbacks of an unmounted observer, and with them the toast.
  const send = (status: 'reviewed' | 'approved' | 'rejected') =>
    review.mutateAsync({ id: report.id, data: { status, reviewNotes: notes.trim() || undefined } }).then(
      () => {
        setNotes('');
        notify.success(`report.review:${report.id}`, t(`reports.review.success.${status}`));
      },
      (error: unknown) => {
        const code = isApiRequestError(error) ? error.fields.reviewNotes : undefined;
        if (code) setNotesError(fieldErrorMessage(code, t));
        else notify.failure(`report.review:${report.id}`, t('reports.review.failed'), errorMessage(error, t));
      },
    );

  const act = (status: 'reviewed' | 'approved' | 'rejected') => {
    setNotesError(null);
    if (status === 'rejected' && !notes.trim()) {
      setNotesError(t('reports.review.notesRequired'));
      return;
    }
    if (status === 'approved') {
      modals.openConfirmModal({
        title: t('reports.review.approveTitle'),
        children: t('reports.review.approveConfirm'),
        labels: { confirm: t('reports.review.approve'), cancel: t('common.cancel') },
        confirmProps: { color: 'green' },
        onConfirm: () => void send(status),
      });
    } else void send(status);
  };

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="review-panel">
      <Stack gap="md">
        <Title order={2} fz="lg" id="review-panel">
          {t('reports.review.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('reports.review.hint')}
        </Text>
        <Textarea
          label={t('reports.review.notes')}
          description={t('reports.review.notesHint')}
          autosize
          minRows={3}
          value={notes}
          error={notesError}
          onChange={(e) => setNotes(e.currentTarget.value)}
        />
        <Group gap="sm">
          {choices.includes('reviewed') && (
            <Button
              variant="light"
              color="violet"
              leftSection={<IconEye size={16} aria-hidden />}
              onClick={() => act('reviewed')}
              loading={review.isPending && review.variables?.data.status === 'reviewed'}
            >
              {t('reports.review.markReviewed')}
            </Button>
          )}
          <Button
            color="green"
            leftSection={<IconCheck size={16} aria-hidden />}
            onClick={() => act('approved')}
            loading={review.isPending && review.variables?.data.status === 'approved'}
          >
            {t('reports.review.approve')}
          </Button>
          <Button
            color="red"
            variant="light"
            leftSection={<IconX size={16} aria-hidden />}
            onClick={() => act('rejected')}
            loading={review.isPending && review.variables?.data.status === 'rejected'}
          >
            {t('reports.review.reject')}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
