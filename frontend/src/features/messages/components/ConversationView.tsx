import { ActionIcon, Button, Group, Skeleton, Stack, Text, Title, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArchive, IconArchiveOff, IconArrowLeft, IconShieldCheck, IconUsers } from '@tabler/icons-react';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { archiveConversation, sendTyping, unarchiveConversation, useGetConversation, useListMessagingUsers } from '@/api/generated/messaging/messaging';
import type { Conversation, UserSummary } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { QueryError } from '@/components/data/QueryError';
import { errorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import { typing } from '@/lib/messaging-live';
import { useCurrentUser } from '@/lib/session';
import type { Messenger } from '../engine/messenger';
import { messengerError } from '../errors';
import { conversationTitle, listNames, othersIn, useRefreshConversation } from '../hooks';
import { Composer } from './Composer';
import { MembersDialog } from './MembersDialog';
import { SafetyDialog } from './SafetyDialog';
import { type Outgoing, Timeline } from './Timeline';
import classes from './messages.module.css';

/** At most one "typing" call per this many milliseconds. */
const TYPING_EVERY_MS = 3000;

type ViewProps = { messenger: Messenger; conversationId: string; onBack: () => void; onGone: () => void };

/** One conversation: its header and actions, the timeline, who is typing, and the composer. */
export function ConversationView({ messenger, conversationId, onBack, onGone }: ViewProps) {
  const { t } = useTranslation();
  const conversation = useGetConversation(conversationId);

  if (conversation.isPending) {
    return (
      <Stack p="md" gap="md" className={classes.conversationPane}>
        <Skeleton h={32} w="50%" />
        <Skeleton h={240} />
      </Stack>
    );
  }
  if (conversation.isError) {
    const missing = isApiRequestError(conversation.error) && conversation.error.status === 404;
    return (
      <Stack p="md" className={classes.conversationPane}>
        {missing ? (
          <EmptyMessage
            title={t('messenger.conversation.gone')}
            description={t('messenger.conversation.goneHint')}
            action={<Button onClick={onGone}>{t('messenger.conversation.back')}</Button>}
          />
        ) : (
          <QueryError error={conversation.error} onRetry={() => void conversation.refetch()} retrying={conversation.isFetching} />
        )}
      </Stack>
    );
  }
  return <Loaded messenger={messenger} conversation={conversation.data} onBack={onBack} onGone={onGone} />;
}

function Loaded({ messenger, conversation, onBack, onGone }: { messenger: Messenger; conversation: Conversation; onBack: () => void; onGone: () => void }) {
  const { t } = useTranslation();
  const { locale } = useFormat();
  const me = useCurrentUser().id;
  const refresh = useRefreshConversation();
  const [membersOpen, setMembersOpen] = useState(false);
  const [verifying, setVerifying] = useState<UserSummary | null>(null);
  const [outbox, setOutbox] = useState<Outgoing[]>([]);
  const [changedKeys, setChangedKeys] = useState<UserSummary[]>([]);
  const latest = useRef(conversation);
  const lastTyping = useRef(0);
  latest.current = conversation;

  const others = othersIn(conversation, me);
  const title = conversationTitle(conversation, me, t);
  const group = conversation.kind === 'group';
  const direct = group ? null : (others[0] ?? null);

  // People no longer in the group are still named in its membership lines.
  const directory = useListMessagingUsers({ page: 1, pageSize: 100 }, { query: { staleTime: 5 * 60_000 } });
  const nameOf = (userId: string | null | undefined): string => {
    if (!userId) return t('messenger.formerMember');
    return (
      conversation.members.find((m) => m.id === userId)?.fullName ?? directory.data?.items.find((p) => p.id === userId)?.fullName ?? t('messenger.formerMember')
    );
  };

  // The first keys seen of each person are pinned; a change is announced in the timeline.
  const otherIds = others.map((o) => o.id).join(',');
  useEffect(() => {
    let live = true;
    const people = latest.current.members.filter((m) => m.id !== me);
    Promise.all(people.map((person) => messenger.checkKeys(person.id).then((check) => (check === 'changed' ? [person] : []))))
      .then((changed) => live && setChangedKeys(changed.flat()))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [messenger, me, otherIds]);

  const typingIds = useSyncExternalStore(typing.subscribe, () => typing.in(conversation.id));
  const typingNames = typingIds.filter((id) => id !== me).map(nameOf);

  const deliver = async (item: Outgoing) => {
    setOutbox((all) => all.map((o) => (o.id === item.id ? { ...o, state: 'sending', error: undefined } : o)));
    try {
      await messenger.send(latest.current, item.text, item.id);
      await refresh(conversation.id);
      setOutbox((all) => all.filter((o) => o.id !== item.id));
    } catch (error) {
      setOutbox((all) => all.map((o) => (o.id === item.id ? { ...o, state: 'failed', error: messengerError(error, t) } : o)));
    }
  };

  const send = (text: string) => {
    // The message ends the typing; what is typed next is told again at once.
    lastTyping.current = 0;
    const item: Outgoing = { id: crypto.randomUUID(), text, state: 'sending' };
    setOutbox((all) => [...all, item]);
    void deliver(item);
  };

  const onTyping = () => {
    const now = Date.now();
    if (now - lastTyping.current < TYPING_EVERY_MS) return;
    lastTyping.current = now;
    sendTyping(conversation.id).catch(() => {});
  };

  const setArchived = async (archived: boolean) => {
    try {
      await (archived ? archiveConversation(conversation.id) : unarchiveConversation(conversation.id));
      await refresh(conversation.id);
      if (archived) {
        const id = notifications.show({
          color: 'blue',
          message: (
            <Group gap="sm" justify="space-between" wrap="nowrap">
              <span>{t('messenger.conversation.archived', { name: title })}</span>
              <Button
                size="compact-sm"
                variant="light"
                onClick={() => {
                  notifications.hide(id);
                  void setArchived(false);
                }}
              >
                {t('messenger.conversation.undo')}
              </Button>
            </Group>
          ),
        });
      } else {
        notifications.show({ color: 'blue', message: t('messenger.conversation.unarchived', { name: title }) });
      }
    } catch (error) {
      notifications.show({ color: 'red', message: errorMessage(error, t) });
    }
  };

  return (
    <Stack gap={0} className={classes.conversationPane}>
      <Group className={classes.paneHeader} p="sm" justify="space-between" wrap="nowrap" gap="xs">
        <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
          <ActionIcon variant="subtle" hiddenFrom="md" aria-label={t('messenger.conversation.back')} onClick={onBack}>
            <IconArrowLeft size={18} aria-hidden />
          </ActionIcon>
          <div style={{ minWidth: 0 }}>
            <Title order={2} size="h4" lineClamp={1}>
              {title}
            </Title>
            <Text size="xs" c="dimmed" lineClamp={1}>
              {group ? listNames([...others.map((m) => m.fullName), t('messenger.members.youShort')], locale) : (direct?.email ?? '')}
            </Text>
          </div>
        </Group>
        <Group gap={4} wrap="nowrap">
          {group ? (
            <Tooltip label={t('messenger.members.open')}>
              <ActionIcon variant="subtle" size="lg" aria-label={t('messenger.members.open')} onClick={() => setMembersOpen(true)}>
                <IconUsers size={20} aria-hidden />
              </ActionIcon>
            </Tooltip>
          ) : (
            direct && (
              <Tooltip label={t('messenger.safety.verify')}>
                <ActionIcon variant="subtle" size="lg" aria-label={t('messenger.safety.verify')} onClick={() => setVerifying(direct)}>
                  <IconShieldCheck size={20} aria-hidden />
                </ActionIcon>
              </Tooltip>
            )
          )}
          <Tooltip label={conversation.archived ? t('messenger.conversation.unarchive') : t('messenger.conversation.archive')}>
            <ActionIcon
              variant="subtle"
              size="lg"
              aria-label={conversation.archived ? t('messenger.conversation.unarchive') : t('messenger.conversation.archive')}
              onClick={() => void setArchived(!conversation.archived)}
            >
              {conversation.archived ? <IconArchiveOff size={20} aria-hidden /> : <IconArchive size={20} aria-hidden />}
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>
      <Timeline
        messenger={messenger}
        conversation={conversation}
        outbox={outbox}
        onRetry={(id) => {
          const item = outbox.find((o) => o.id === id);
          if (item) void deliver(item);
        }}
        onDiscard={(id) => setOutbox((all) => all.filter((o) => o.id !== id))}
        changedKeys={changedKeys}
        onVerify={setVerifying}
        nameOf={nameOf}
      />
      <Text size="xs" c="dimmed" px="md" className={classes.typing} aria-live="polite">
        {typingNames.length === 1
          ? t('messenger.typing.one', { name: typingNames[0] })
          : typingNames.length === 2
            ? t('messenger.typing.two', { first: typingNames[0], second: typingNames[1] })
            : typingNames.length > 2
              ? t('messenger.typing.many')
              : ''}
      </Text>
      <Composer onSend={send} onTyping={onTyping} />
      {group && (
        <MembersDialog
          conversation={conversation}
          opened={membersOpen}
          onClose={() => setMembersOpen(false)}
          onVerify={(person) => {
            setMembersOpen(false);
            setVerifying(person);
          }}
          onLeft={() => {
            setMembersOpen(false);
            onGone();
          }}
        />
      )}
      <SafetyDialog
        messenger={messenger}
        person={verifying}
        onClose={() => setVerifying(null)}
        onAccepted={(person) => setChangedKeys((all) => all.filter((p) => p.id !== person.id))}
      />
    </Stack>
  );
}
