import { Alert, Modal, SegmentedControl, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconInfoCircle } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import type { ParseKeys } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { isApiRequestError } from '@/api/mutator';
import type { ReportData } from '@/api/generated/model';
import { createDepartmentReport, updateReport, useListDepartmentReports } from '@/api/generated/reports/reports';
import { getSpreadsheetRange } from '@/api/generated/spreadsheets/spreadsheets';
import { DialogActions } from '@/components/DialogActions';
import { DateField } from '@/components/forms/DateField';
import { errorMessage } from '@/lib/errors';
import { useFieldProps } from '@/lib/forms';
import { href } from '@/lib/paths';
import { invalidateReports } from '@/lib/query-invalidation';
import { canModify } from '@/lib/report-rules';
import { useCurrentUser } from '@/lib/session';
import { all, rules } from '@/lib/validation';
import { whenNotBusy } from '../api';
import { type SheetInfo, areaName, parseArea } from '../engine/workbook';

/** What a report's data table may hold (the server's limits). */
const MAX_COLUMNS = 50;
const MAX_ROWS = 10_000;

type Values = { sheet: string; range: string; target: 'new' | 'draft'; title: string; periodStart: string; periodEnd: string; draftId: string };

/** The range as the server takes it (`A1:C10`, a header row and at least one row), or the reason it is not. */
export function checkRange(text: string): { range: string } | { error: ParseKeys } {
  const area = parseArea(text, 0);
  if (!area) return { error: 'spreadsheets.report.rangeInvalid' };
  if (area.height < 2) return { error: 'spreadsheets.report.rangeTooShort' };
  if (area.width > MAX_COLUMNS || area.height - 1 > MAX_ROWS) return { error: 'spreadsheets.report.rangeTooLarge' };
  return { range: areaName(area) };
}

/** The column names of a range's first row must all be there (a report's table needs them). */
export function missingColumnNames(data: ReportData): number[] {
  return data.columns.flatMap((name, index) => (name.trim() ? [] : [index]));
}

type ReportDialogProps = {
  opened: boolean;
  onClose: () => void;
  departmentId: string;
  spreadsheetId: string;
  spreadsheetName: string;
  sheets: SheetInfo[];
  activeSheet: number;
  /** The selected range, offered first. */
  defaultRange: string;
  /** Saves what is not saved yet (the server reads the saved version); false when it could not. */
  prepare: () => Promise<boolean>;
};

/**
 * "Use in a report": a range of the spreadsheet (its first row names the columns) becomes the
 * data table of a new report, or replaces a draft's. The figures are the server's own evaluation
 * of the saved workbook, so the report's chart and downloads show what the spreadsheet shows.
 */
export function ReportDialog({ opened, onClose, ...props }: ReportDialogProps) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onClose} title={t('spreadsheets.report.title')} size="lg" centered closeButtonProps={{ 'aria-label': t('common.close') }}>
      {opened && <ReportForm onClose={onClose} {...props} />}
    </Modal>
  );
}

function ReportForm({ onClose, departmentId, spreadsheetId, spreadsheetName, sheets, activeSheet, defaultRange, prepare }: Omit<ReportDialogProps, 'opened'>) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: {
      sheet: String(activeSheet),
      range: defaultRange,
      target: 'new',
      title: spreadsheetName,
      periodStart: '',
      periodEnd: '',
      draftId: '',
    },
    validate: {
      range: (value) => {
        const checked = checkRange(value);
        return 'error' in checked ? checked.error : null;
      },
      title: (value, values) => (values.target === 'new' ? all(rules.required, rules.maxLength(200))(value) : null),
      periodStart: (value, values) => (values.target === 'new' ? rules.required(value) : null),
      periodEnd: (value, values) =>
        values.target === 'new'
          ? (rules.required(value) ?? (values.periodStart && value < values.periodStart ? 'reports.validation.periodOrder' : null))
          : null,
      draftId: (value, values) => (values.target === 'draft' ? rules.required(value) : null),
    },
  });
  const field = useFieldProps(form);
  const target = form.getValues().target;
  const drafts = useListDepartmentReports(departmentId, { status: 'draft', pageSize: 100, sort: '-createdAt' }, { query: { enabled: target === 'draft' } });
  const draftOptions = (drafts.data?.items ?? []).filter((report) => canModify(report, user)).map((report) => ({ value: report.id, label: report.title }));

  const submit = async (values: Values) => {
    const checked = checkRange(values.range);
    if ('error' in checked) return;
    const sheet = sheets.find((entry) => String(entry.index) === values.sheet) ?? sheets[0];
    setBusy(true);
    try {
      if (!(await prepare())) {
        notifications.show({ color: 'red', title: t('spreadsheets.report.failed'), message: t('spreadsheets.report.notSaved') });
        return;
      }
      let data: ReportData;
      try {
        data = await whenNotBusy(() => getSpreadsheetRange(spreadsheetId, { range: checked.range, sheet: sheet.name }));
      } catch (error) {
        if (isApiRequestError(error) && (error.fields.range || error.fields.sheet)) {
          form.setFieldError(
            error.fields.sheet ? 'sheet' : 'range',
            error.fields.sheet ? 'spreadsheets.report.sheetInvalid' : 'spreadsheets.report.rangeInvalid',
          );
          return;
        }
        throw error;
      }
      if (missingColumnNames(data).length > 0) {
        form.setFieldError('range', 'spreadsheets.report.columnNamesMissing');
        return;
      }
      let reportId: string;
      if (values.target === 'new') {
        const content = t('spreadsheets.report.content', { name: spreadsheetName, range: `${sheet.name}!${checked.range}` });
        const created = await createDepartmentReport(departmentId, {
          title: values.title.trim(),
          content,
          periodStart: values.periodStart,
          periodEnd: values.periodEnd,
          data,
        });
        reportId = created.id;
      } else {
        reportId = (await updateReport(values.draftId, { data })).id;
      }
      await invalidateReports(client);
      notifications.show({ color: 'teal', message: t(values.target === 'new' ? 'spreadsheets.report.created' : 'spreadsheets.report.updated') });
      onClose();
      navigate(href('departmentReport', { id: departmentId, reportId }));
    } catch (error) {
      notifications.show({ color: 'red', title: t('spreadsheets.report.failed'), message: errorMessage(error, t) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form noValidate onSubmit={form.onSubmit((values) => void submit(values))}>
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          {t('spreadsheets.report.hint')}
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label={t('spreadsheets.report.sheet')}
            data={sheets.map((sheet) => ({ value: String(sheet.index), label: sheet.name }))}
            allowDeselect={false}
            comboboxProps={{ withinPortal: true }}
            {...field('sheet')}
          />
          <TextInput label={t('spreadsheets.report.range')} placeholder="A1:D10" withAsterisk ff="monospace" {...field('range')} />
        </SimpleGrid>
        <SegmentedControl
          fullWidth
          aria-label={t('spreadsheets.report.target')}
          data={[
            { value: 'new', label: t('spreadsheets.report.newReport') },
            { value: 'draft', label: t('spreadsheets.report.updateDraft') },
          ]}
          {...form.getInputProps('target')}
        />
        {target === 'new' ? (
          <>
            <TextInput label={t('reports.fields.title')} withAsterisk {...field('title')} />
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <DateField label={t('reports.fields.periodStart')} withAsterisk popoverProps={{ withinPortal: true }} {...field('periodStart')} />
              <DateField label={t('reports.fields.periodEnd')} withAsterisk popoverProps={{ withinPortal: true }} {...field('periodEnd')} />
            </SimpleGrid>
          </>
        ) : drafts.isSuccess && draftOptions.length === 0 ? (
          <Alert color="gray" icon={<IconInfoCircle aria-hidden />}>
            {t('spreadsheets.report.noDrafts')}
          </Alert>
        ) : (
          <Select
            label={t('spreadsheets.report.draft')}
            data={draftOptions}
            withAsterisk
            searchable
            nothingFoundMessage={t('spreadsheets.report.noDrafts')}
            comboboxProps={{ withinPortal: true }}
            {...field('draftId')}
          />
        )}
        <DialogActions
          onCancel={onClose}
          submitLabel={t(target === 'new' ? 'spreadsheets.report.create' : 'spreadsheets.report.update')}
          saving={busy}
          disabled={target === 'draft' && draftOptions.length === 0}
        />
      </Stack>
    </form>
  );
}
