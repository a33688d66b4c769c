import { Button, Group, Loader, Text } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconCloudOff, IconEye, IconPencil } from '@tabler/icons-react';
import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import type { SaveState } from '../autosave';

type Shown = { text: string; detail?: string; color: string; icon: ReactNode };

/** What the indicator says for a state (`readOnly`: the CEO's view, which never saves). */
export function describeSave(state: SaveState | 'readOnly', t: TFunction, time: (iso: string) => string): Shown {
  if (state === 'readOnly') return { text: t('spreadsheets.save.readOnly'), color: 'dimmed', icon: <IconEye size={16} aria-hidden /> };
  switch (state.status) {
    case 'saved':
      return {
        text: t('spreadsheets.save.saved'),
        detail: state.savedAt ? t('spreadsheets.save.savedAt', { time: time(state.savedAt) }) : undefined,
        color: 'teal',
        icon: <IconCircleCheck size={16} aria-hidden />,
      };
    case 'pending':
      return { text: t('spreadsheets.save.pending'), color: 'dimmed', icon: <IconPencil size={16} aria-hidden /> };
    case 'saving':
      return { text: t('spreadsheets.save.saving'), color: 'dimmed', icon: <Loader size={14} aria-hidden /> };
    case 'retrying':
      return {
        text: t('spreadsheets.save.retrying', { count: state.retryIn ?? 0 }),
        detail: errorMessage(state.error, t),
        color: 'orange',
        icon: <IconCloudOff size={16} aria-hidden />,
      };
    case 'failed':
      return { text: t('spreadsheets.save.failed'), detail: errorMessage(state.error, t), color: 'red', icon: <IconAlertTriangle size={16} aria-hidden /> };
    case 'conflict':
      return { text: t('spreadsheets.save.conflict'), color: 'red', icon: <IconAlertTriangle size={16} aria-hidden /> };
  }
}

type SaveIndicatorProps = {
  state: SaveState | 'readOnly';
  /** Offered when a save failed or conflicts. */
  onRetry?: () => void;
  onResolve?: () => void;
};

/** The saved / saving / conflict state of the workbook, announced politely as it changes. */
export function SaveIndicator({ state, onRetry, onResolve }: SaveIndicatorProps) {
  const { t } = useTranslation();
  const format = useFormat();
  const shown = describeSave(state, t, (iso) => format.dateTime(iso));
  const status = state === 'readOnly' ? 'readOnly' : state.status;
  return (
    <Group gap="xs" wrap="nowrap">
      <Group gap={6} wrap="nowrap" c={shown.color} role="status" aria-live="polite" data-testid="save-state" data-status={status}>
        {shown.icon}
        <Text size="sm" c={shown.color} fw={500} style={{ whiteSpace: 'nowrap' }} title={shown.detail}>
          {shown.text}
        </Text>
        {shown.detail && status !== 'saved' && (
          <Text size="xs" c="dimmed" lineClamp={1} maw={260}>
            {shown.detail}
          </Text>
        )}
      </Group>
      {status === 'failed' && onRetry && (
        <Button size="compact-sm" variant="light" color="red" onClick={onRetry}>
          {t('common.retry')}
        </Button>
      )}
      {status === 'conflict' && onResolve && (
        <Button size="compact-sm" variant="light" color="red" onClick={onResolve}>
          {t('spreadsheets.conflict.resolve')}
        </Button>
      )}
    </Group>
  );
}
