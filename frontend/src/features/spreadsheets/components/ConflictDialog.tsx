import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { IconCopy, IconRefresh } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

type ConflictDialogProps = {
  opened: boolean;
  name: string;
  /** Which choice is on its way. */
  busy: 'reload' | 'copy' | null;
  /** Drop this version and open the one saved since. */
  onReload: () => void;
  /** Save this version as a new spreadsheet, leaving the other one as it is. */
  onKeepCopy: () => void;
  onClose: () => void;
};

/**
 * Someone saved the spreadsheet since this version was opened (409 `stale_version`): the changes
 * made here were not saved. The user reloads the other version or keeps theirs as a copy.
 */
export function ConflictDialog({ opened, name, busy, onReload, onKeepCopy, onClose }: ConflictDialogProps) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('spreadsheets.conflict.title')}
      centered
      closeOnClickOutside={false}
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <Stack gap="md" data-testid="conflict-dialog">
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {t('spreadsheets.conflict.body', { name })}
        </Text>
        <Text size="sm">{t('spreadsheets.conflict.choices')}</Text>
        <Group justify="flex-end" gap="sm" wrap="wrap">
          <Button
            variant="default"
            leftSection={<IconRefresh size={16} aria-hidden />}
            onClick={onReload}
            loading={busy === 'reload'}
            disabled={busy === 'copy'}
          >
            {t('spreadsheets.conflict.reload')}
          </Button>
          <Button leftSection={<IconCopy size={16} aria-hidden />} onClick={onKeepCopy} loading={busy === 'copy'} disabled={busy === 'reload'}>
            {t('spreadsheets.conflict.keepCopy')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
