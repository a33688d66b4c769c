import { Alert, Modal, SegmentedControl, Skeleton, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCircleCheck } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { QueryError } from '@/components/data/QueryError';
import { BackupChangedError, type BackupState, type Messenger } from '../engine/messenger';
import { PassphraseForm } from './PassphraseForm';

type DialogProps = { messenger: Messenger; opened: boolean; onClose: () => void };

/**
 * Key backup settings: change the passphrase of this browser's backup; or set one up. Keys in
 * use cannot be read out of the browser, so setting up a backup later makes a new key version,
 * which the dialog says.
 */
export function BackupDialog({ messenger, opened, onClose }: DialogProps) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onClose} title={t('messenger.backup.title')} size="lg" closeButtonProps={{ 'aria-label': t('common.close') }}>
      {opened && <BackupSettings messenger={messenger} onDone={onClose} />}
    </Modal>
  );
}

function BackupSettings({ messenger, onDone }: { messenger: Messenger; onDone: () => void }) {
  const { t } = useTranslation();
  const [state, setState] = useState<BackupState | 'loading' | Error>('loading');
  const [mode, setMode] = useState<'join' | 'new'>('join');
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    messenger.backupState().then(
      (value) => live && setState(value),
      (error: unknown) => live && setState(error instanceof Error ? error : new Error(String(error))),
    );
    return () => {
      live = false;
    };
  }, [messenger, attempt]);

  const done = (message: string) => {
    notifications.show({ color: 'teal', message });
    onDone();
  };

  if (state === 'loading') return <Skeleton h={160} />;
  if (state instanceof Error) return <QueryError error={state} onRetry={() => setAttempt((n) => n + 1)} />;

  if (state === 'on') {
    return (
      <Stack gap="md">
        <Alert color="teal" variant="light" icon={<IconCircleCheck aria-hidden />}>
          {t('messenger.backup.isOn')}
        </Alert>
        <PassphraseForm
          kind="choose"
          label={t('messenger.backup.newPassphrase')}
          submitLabel={t('messenger.backup.change')}
          onSubmit={async (passphrase) => {
            try {
              await messenger.changePassphrase(passphrase);
            } catch (error) {
              if (error instanceof BackupChangedError) setState('elsewhere');
              throw error;
            }
            done(t('messenger.backup.changed'));
          }}
        />
      </Stack>
    );
  }

  const joining = state === 'elsewhere' && mode === 'join';
  return (
    <Stack gap="md">
      <Text>{state === 'elsewhere' ? t('messenger.backup.elsewhere') : t('messenger.backup.isOff')}</Text>
      <Text size="sm">{t('messenger.backup.newVersionNote')}</Text>
      {state === 'elsewhere' && (
        <SegmentedControl
          aria-label={t('messenger.backup.which')}
          value={mode}
          onChange={(value) => setMode(value as 'join' | 'new')}
          data={[
            { value: 'join', label: t('messenger.backup.join') },
            { value: 'new', label: t('messenger.backup.replace') },
          ]}
        />
      )}
      {state === 'elsewhere' && mode === 'new' && <Text size="sm">{t('messenger.backup.replaceWarning')}</Text>}
      <PassphraseForm
        key={joining ? 'join' : 'new'}
        kind={joining ? 'enter' : 'choose'}
        label={joining ? t('messenger.backup.existingPassphrase') : t('messenger.backup.passphrase')}
        submitLabel={t('messenger.backup.setUp')}
        onSubmit={async (passphrase) => {
          await messenger.enableBackup(passphrase, joining ? 'join' : 'new');
          done(t('messenger.backup.done'));
        }}
      />
    </Stack>
  );
}
