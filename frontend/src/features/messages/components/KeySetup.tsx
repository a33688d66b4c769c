import { Alert, Button, Card, Divider, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconKey, IconLock } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Messenger, MessengerStatus } from '../engine/messenger';
import { messengerError } from '../errors';
import { PassphraseForm } from './PassphraseForm';

type Pending = Extract<MessengerStatus, { kind: 'restore' | 'needs-backup' }>;

/**
 * Before the messenger opens in this browser: restore the keys from the backup (or start
 * fresh), or, right after keys were made here, protect them with a backup passphrase (or skip).
 */
export function KeySetup({ messenger, status }: { messenger: Messenger; status: Pending }) {
  return status.kind === 'restore' ? (
    <Restore messenger={messenger} status={status} />
  ) : (
    <FirstBackup messenger={messenger} existing={status.existingBackup} replacedKeys={status.replacedKeys} />
  );
}

function Restore({ messenger, status }: { messenger: Messenger; status: Extract<MessengerStatus, { kind: 'restore' }> }) {
  const { t } = useTranslation();
  const [starting, setStarting] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const startFresh = async () => {
    setStarting(true);
    setFailure(null);
    try {
      await messenger.startFresh();
    } catch (error) {
      setFailure(messengerError(error, t));
      setStarting(false);
    }
  };

  return (
    <Card withBorder padding="lg" maw={640}>
      <Stack gap="md">
        <Title order={2} size="h3">
          <IconKey size={20} aria-hidden style={{ verticalAlign: 'middle', marginInlineEnd: 8 }} />
          {t('messenger.setup.restoreTitle')}
        </Title>
        <Text>{status.reason === 'new-browser' ? t('messenger.setup.restoreNewBrowser') : t('messenger.setup.restoreNewerKeys')}</Text>
        {status.hasBackup ? (
          <PassphraseForm
            kind="enter"
            label={t('messenger.backup.passphrase')}
            submitLabel={t('messenger.setup.restore')}
            onSubmit={(passphrase) => messenger.restore(passphrase)}
          />
        ) : (
          <Text size="sm">{t('messenger.setup.noBackup')}</Text>
        )}
        <Divider label={t('messenger.setup.or')} labelPosition="center" />
        <Stack gap={4} align="flex-start">
          <Button variant="default" onClick={() => void startFresh()} loading={starting}>
            {t('messenger.setup.startFresh')}
          </Button>
          <Text size="sm" c="dimmed">
            {t('messenger.setup.startFreshHint')}
          </Text>
        </Stack>
        {failure && (
          <Alert color="red" variant="light" role="alert">
            {failure}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}

function FirstBackup({ messenger, existing, replacedKeys }: { messenger: Messenger; existing: boolean; replacedKeys: boolean }) {
  const { t } = useTranslation();
  const [mode, setMode] = useState<'join' | 'new'>(existing ? 'join' : 'new');

  return (
    <Card withBorder padding="lg" maw={640}>
      <Stack gap="md">
        <Title order={2} size="h3">
          <IconLock size={20} aria-hidden style={{ verticalAlign: 'middle', marginInlineEnd: 8 }} />
          {t('messenger.setup.backupTitle')}
        </Title>
        <Text>{t('messenger.setup.backupIntro')}</Text>
        {replacedKeys && <Text size="sm">{t('messenger.setup.replacedKeys')}</Text>}
        {existing && (
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
        {existing && mode === 'new' && <Text size="sm">{t('messenger.backup.replaceWarning')}</Text>}
        <PassphraseForm
          key={mode}
          kind={mode === 'join' ? 'enter' : 'choose'}
          label={mode === 'join' ? t('messenger.backup.existingPassphrase') : t('messenger.backup.passphrase')}
          submitLabel={t('messenger.backup.save')}
          onSubmit={(passphrase) => messenger.enableBackup(passphrase, mode)}
          extra={
            <Button variant="subtle" color="gray" onClick={() => messenger.skipBackup()}>
              {t('messenger.setup.skip')}
            </Button>
          }
        />
        <Alert color="orange" variant="light" icon={<IconAlertTriangle aria-hidden />}>
          {t('messenger.setup.skipWarning')}
        </Alert>
      </Stack>
    </Card>
  );
}
