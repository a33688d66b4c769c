import { Stack, Text } from '@mantine/core';
import { openConfirmModal } from '@mantine/modals';
import type { TFunction } from 'i18next';
import type { ReportDetail } from '@/api/generated/model';

/** Asks before deleting a report: SPEC §8's question, the report's title, and that it is final. */
export function confirmDeleteReport(report: Pick<ReportDetail, 'title'>, t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('reports.delete.title'),
    children: (
      <Stack gap="xs" data-testid="delete-report-confirmation">
        <Text size="sm">{t('reports.delete.confirm')}</Text>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {t('reports.delete.named', { title: report.title })}
        </Text>
        <Text size="sm" fw={600}>
          {t('reports.delete.irreversible')}
        </Text>
      </Stack>
    ),
    labels: { confirm: t('common.delete'), cancel: t('common.cancel') },
    confirmProps: { color: 'red' },
    onConfirm,
  });
}
