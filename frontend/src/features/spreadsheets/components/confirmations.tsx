import { Stack, Text } from '@mantine/core';
import { openConfirmModal } from '@mantine/modals';
import type { TFunction } from 'i18next';

/** Asks before deleting a spreadsheet: names it and says it is final. */
export function confirmDeleteSpreadsheet(name: string, t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('spreadsheets.delete.title'),
    children: (
      <Stack gap="xs" data-testid="delete-spreadsheet-confirmation">
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {t('spreadsheets.delete.question', { name })}
        </Text>
        <Text size="sm" fw={600}>
          {t('spreadsheets.delete.irreversible')}
        </Text>
      </Stack>
    ),
    labels: { confirm: t('spreadsheets.delete.confirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'red' },
    onConfirm,
  });
}

/** Asks before deleting a sheet of the workbook (undo brings it back). */
export function confirmDeleteSheet(name: string, t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('spreadsheets.sheets.deleteTitle'),
    children: (
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {t('spreadsheets.sheets.deleteQuestion', { name })}
      </Text>
    ),
    labels: { confirm: t('spreadsheets.sheets.delete'), cancel: t('common.cancel') },
    confirmProps: { color: 'red' },
    onConfirm,
  });
}
