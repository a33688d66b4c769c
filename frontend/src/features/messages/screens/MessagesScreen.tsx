import { Button, Center, Loader, Stack, Text } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconKey, IconMessagePlus, IconUsersPlus } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import type { Conversation } from '@/api/generated/model';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { QueryError } from '@/components/data/QueryError';
import { PageHeader } from '@/components/PageHeader';
import { onMessagingEvent } from '@/lib/messaging-live';
import { BackupDialog } from '../components/BackupDialog';
import { ConversationList } from '../components/ConversationList';
import { ConversationView } from '../components/ConversationView';
import { KeySetup } from '../components/KeySetup';
import { NewChatDialog, NewGroupDialog } from '../components/NewConversationDialogs';
import classes from '../components/messages.module.css';
import { useMessenger, useMessengerStatus } from '../hooks';

/** The open conversation is in the address (`?c=<id>`), so it survives a reload and the back button works. */
const SELECTED = 'c';

/**
 * The end-to-end encrypted messenger (/messages, any signed-in user). Before anything else this
 * browser needs the user's keys: made on the first visit, or restored from the backup. Then the
 * conversation list and the open conversation.
 */
export default function MessagesScreen() {
  const { t } = useTranslation();
  useDocumentTitle(`${t('messenger.pageTitle')} · ${t('app.name')}`);
  const messenger = useMessenger();
  const status = useMessengerStatus(messenger);
  const [failure, setFailure] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  const [params, setParams] = useSearchParams();
  const selected = params.get(SELECTED);
  const [archived, setArchived] = useState(false);
  const [dialog, setDialog] = useState<'chat' | 'group' | 'backup' | null>(null);

  useEffect(() => {
    messenger.start(attempt > 0).catch(setFailure);
  }, [messenger, attempt]);

  // A conversation whose members or epochs changed: its keys are listed again when next needed.
  useEffect(() => onMessagingEvent((event) => event.type === 'conversation.changed' && messenger.forgetConversation(event.conversationId)), [messenger]);

  const select = (id: string | null) => setParams(id ? { [SELECTED]: id } : {}, { replace: false });
  const opened = (conversation: Conversation) => {
    setDialog(null);
    setArchived(conversation.archived);
    select(conversation.id);
  };

  const ready = status.kind === 'ready';

  const body = () => {
    if (failure) {
      return (
        <QueryError
          error={failure}
          title={t('messenger.setup.failed')}
          onRetry={() => {
            setFailure(null);
            setAttempt((n) => n + 1);
          }}
        />
      );
    }
    if (status.kind === 'starting') {
      return (
        <Center py="xl">
          <Stack align="center" gap="xs" role="status">
            <Loader aria-hidden />
            <Text>{t('messenger.setup.starting')}</Text>
          </Stack>
        </Center>
      );
    }
    if (status.kind !== 'ready') return <KeySetup messenger={messenger} status={status} />;
    return (
      <div className={classes.shell} data-selected={selected ? true : undefined}>
        <ConversationList archived={archived} onArchivedChange={setArchived} selectedId={selected} onSelect={select} onNewChat={() => setDialog('chat')} />
        {selected ? (
          <ConversationView key={selected} messenger={messenger} conversationId={selected} onBack={() => select(null)} onGone={() => select(null)} />
        ) : (
          <Center className={classes.conversationPane}>
            <EmptyMessage title={t('messenger.conversation.none')} description={t('messenger.conversation.noneHint')} />
          </Center>
        )}
      </div>
    );
  };

  return (
    <Stack gap="lg">
      <PageHeader
        title={t('messenger.title')}
        description={t('messenger.description')}
        actions={
          ready && (
            <>
              <Button leftSection={<IconMessagePlus size={16} aria-hidden />} onClick={() => setDialog('chat')}>
                {t('messenger.newChat.open')}
              </Button>
              <Button variant="default" leftSection={<IconUsersPlus size={16} aria-hidden />} onClick={() => setDialog('group')}>
                {t('messenger.newGroup.open')}
              </Button>
              <Button variant="subtle" leftSection={<IconKey size={16} aria-hidden />} onClick={() => setDialog('backup')}>
                {t('messenger.backup.open')}
              </Button>
            </>
          )
        }
      />
      {body()}
      {ready && (
        <>
          <NewChatDialog opened={dialog === 'chat'} onClose={() => setDialog(null)} onCreated={opened} />
          <NewGroupDialog opened={dialog === 'group'} onClose={() => setDialog(null)} onCreated={opened} />
          <BackupDialog messenger={messenger} opened={dialog === 'backup'} onClose={() => setDialog(null)} />
        </>
      )}
    </Stack>
  );
}
