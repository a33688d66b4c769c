import { Alert, Button, Card, Group, SimpleGrid, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDocumentTitle } from '@mantine/hooks';
import { IconDeviceFloppy, IconMessage, IconSend } from '@tabler/icons-react';
import type { ParseKeys } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import type { ReportDetail, ReportStatus } from '@/api/generated/model';
import { useGetReport } from '@/api/generated/reports/reports';
import { DateField } from '@/components/forms/DateField';
import { PageHeader } from '@/components/PageHeader';
import { LoadState } from '@/components/reports/ReportState';
import { errorMessage } from '@/lib/errors';
import { serverFieldErrors } from '@/lib/form-errors';
import { useFormat } from '@/lib/format';
import { showServerErrors, useFieldProps } from '@/lib/forms';
import { notify } from '@/lib/notify';
import { href } from '@/lib/paths';
import { canModify, lastRejection } from '@/lib/report-rules';
import { type TableDraft, serialiseTable, tableFromData, textInNumberColumns } from '@/lib/report-table';
import { all, rules } from '@/lib/validation';
import { useCreateReportMutation, useDepartmentRoute, useUpdateReportMutation } from '../api';
import { TableEditor } from '../components/TableEditor';

type Values = { title: string; content: string; periodStart: string; periodEnd: string };
const FIELDS = ['title', 'content', 'periodStart', 'periodEnd'] as const;

/** Period end before start: the one cross-field rule. */
export function periodEndRule(end: string, start: string): ParseKeys | null {
  return rules.required(end) ?? (start && end < start ? 'reports.validation.periodOrder' : null);
}

/** /department/:id/reports/create and /department/:id/reports/:reportId/edit. */
export default function ReportFormScreen() {
  const { t } = useTranslation();
  const { departmentId, reportId, own, user } = useDepartmentRoute();
  const editing = Boolean(reportId);
  const report = useGetReport(reportId, undefined, { query: { enabled: own && editing } });
  useDocumentTitle(`${t(editing ? 'reports.form.editTitle' : 'reports.form.createTitle')} · ${t('app.name')}`);
  const back = editing
    ? { to: href('departmentReport', { id: departmentId, reportId }), label: t('reports.backToReport') }
    : { to: href('departmentReports', { id: departmentId }), label: t('reports.backToList') };

  if (!own || (editing && !report.data)) {
    return (
      <LoadState
        query={own && editing ? report : undefined}
        back={back}
        title={t(editing ? 'reports.form.editTitle' : 'reports.form.createTitle')}
        notFound={t('reports.department.notFound')}
      />
    );
  }
  if (report.data && (!canModify(report.data, user) || report.data.departmentId !== departmentId)) {
    return <LoadState back={back} title={t('reports.form.editTitle')} notFound={t('reports.form.notEditable')} />;
  }
  return <ReportForm key={report.data?.id ?? 'new'} departmentId={departmentId} report={report.data} back={back} />;
}

function ReportForm({ departmentId, report, back }: { departmentId: string; report?: ReportDetail; back: { to: string; label: string } }) {
  const { t, i18n } = useTranslation();
  // Numbers are read as the interface language writes them (en 1,250.50, fr 1 250,50).
  const numbers = i18n.language === 'fr' ? 'fr' : 'en';
  const navigate = useNavigate();
  const create = useCreateReportMutation();
  const update = useUpdateReportMutation();
  const [table, setTable] = useState<TableDraft>(() => tableFromData(report?.data));
  const [missingNames, setMissingNames] = useState<number[]>([]);
  // Cells are checked from the first save on, then as they change.
  const [cellsChecked, setCellsChecked] = useState(false);
  const notNumbers = cellsChecked ? textInNumberColumns(table, numbers) : [];
  const [pending, setPending] = useState<ReportStatus | null>(null);
  const format = useFormat();
  // What the author has to answer: the last rejection's notes, from the history (editing clears
  // the report's current review, so a draft made from a rejected report has none of its own).
  const rejection = report ? lastRejection(report) : null;
  const rejectionNotes = rejection?.notes ?? (report?.status === 'rejected' ? report.reviewNotes : null);
  const showRejection = report?.status === 'rejected' || (report?.status === 'draft' && rejection !== null);
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: {
      title: report?.title ?? '',
      content: report?.content ?? '',
      periodStart: report?.periodStart ?? '',
      periodEnd: report?.periodEnd ?? '',
    },
    validate: {
      title: all(rules.required, rules.maxLength(200)),
      content: rules.required,
      periodStart: rules.required,
      periodEnd: (value, values) => periodEndRule(value, values.periodStart),
    },
  });
  const field = useFieldProps(form);

  const save = (status: 'draft' | 'submitted') => {
    const checked = form.validate();
    const missing = table.columns.flatMap((name, index) => (name.trim() ? [] : [index]));
    setMissingNames(missing);
    setCellsChecked(true);
    if (checked.hasErrors || missing.length > 0 || textInNumberColumns(table, numbers).length > 0) return;
    const values = form.getValues();
    const action = report ? `report.update:${report.id}` : `report.create:${departmentId}`;
    const data = serialiseTable(table, numbers);
    const onError = (error: unknown) => {
      setPending(null);
      if (showServerErrors(form, serverFieldErrors(error, FIELDS), FIELDS)) return;
      notify.failure(action, t(report ? 'reports.form.updateFailed' : 'reports.form.createFailed'), errorMessage(error, t));
    };
    setPending(status);
    if (report) {
      update.mutate(
        { id: report.id, data: { ...values, data, ...(status === 'submitted' ? { status } : {}) } },
        {
          onSuccess: () => {
            notify.success(action, t('reports.form.updated'));
            navigate(href('departmentReport', { id: departmentId, reportId: report.id }));
          },
          onError,
        },
      );
    } else {
      create.mutate(
        { id: departmentId, data: { ...values, status, ...(data ? { data } : {}) } },
        {
          onSuccess: (created) => {
            notify.success(action, t('reports.form.created'));
            navigate(href('departmentReport', { id: departmentId, reportId: created.id }));
          },
          onError,
        },
      );
    }
  };

  return (
    <Stack gap="lg">
      <PageHeader title={t(report ? 'reports.form.editTitle' : 'reports.form.createTitle')} description={report?.title} back={back} />
      {report && showRejection && (
        <Alert
          color={report.status === 'rejected' ? 'red' : 'yellow'}
          icon={<IconMessage aria-hidden />}
          title={t(report.status === 'rejected' ? 'reports.form.rejectedTitle' : 'reports.form.lastRejectionTitle')}
          data-testid="review-notes"
        >
          {rejection && (
            // Not dimmed: grey on the alert's red tint falls below a 4.5:1 contrast.
            <Text size="sm">
              {t('reports.form.rejectedBy', { name: rejection.actor?.fullName ?? t('reports.detail.deletedUser'), at: format.dateTime(rejection.createdAt) })}
            </Text>
          )}
          {rejectionNotes && (
            <Text size="sm" style={{ whiteSpace: 'pre-line' }}>
              {rejectionNotes}
            </Text>
          )}
          <Text size="sm" mt="xs" fw={500}>
            {t(report.status === 'rejected' ? 'reports.form.rejectedHint' : 'reports.form.draftAfterRejectionHint')}
          </Text>
        </Alert>
      )}
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          save('draft');
        }}
      >
        <Stack gap="lg">
          <Card withBorder radius="md" padding="lg">
            <Stack gap="md">
              <TextInput label={t('reports.fields.title')} withAsterisk {...field('title')} />
              <Textarea label={t('reports.fields.content')} withAsterisk autosize minRows={5} maxRows={16} {...field('content')} />
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <DateField label={t('reports.fields.periodStart')} withAsterisk {...field('periodStart')} />
                <DateField label={t('reports.fields.periodEnd')} withAsterisk {...field('periodEnd')} />
              </SimpleGrid>
            </Stack>
          </Card>
          <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="report-table-editor">
            <Stack gap="sm">
              <Title order={2} fz="lg" id="report-table-editor">
                {t('reports.table.title')}
              </Title>
              <Text size="sm" c="dimmed">
                {t('reports.table.hint')}
              </Text>
              <TableEditor value={table} onChange={setTable} missingNames={missingNames} notNumbers={notNumbers} />
            </Stack>
          </Card>
          <Group justify="flex-end" gap="sm">
            <Button
              type="submit"
              variant="default"
              leftSection={<IconDeviceFloppy size={18} aria-hidden />}
              loading={pending === 'draft'}
              disabled={pending === 'submitted'}
            >
              {t('reports.form.saveDraft')}
            </Button>
            <Button
              type="button"
              leftSection={<IconSend size={18} aria-hidden />}
              onClick={() => save('submitted')}
              loading={pending === 'submitted'}
              disabled={pending === 'draft'}
            >
              {t('reports.form.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
