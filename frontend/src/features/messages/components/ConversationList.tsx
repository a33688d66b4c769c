import { Badge, Button, Group, SegmentedControl, Skeleton, Stack, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { IconArchive, IconMessages, IconUsersGroup } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Conversation } from '@/api/generated/model';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { QueryError } from '@/components/data/QueryError';
import { useFormat } from '@/lib/format';
import { useCurrentUser } from '@/lib/session';
import { conversationTitle, useConversationPages } from '../hooks';
import classes from './messages.module.css';

type ListProps = {
  archived: boolean;
  onArchivedChange: (archived: boolean) => void;
  selectedId: string | null;
  onSelect: (id: string) => void;
  onNewChat: () => void;
};

/** When something last happened: the time today, the date before. */
export function useActivityTime() {
  const { locale } = useFormat();
  return (value: string): string => {
    const date = new Date(value);
    const today = new Date().toDateString() === date.toDateString();
    return new Intl.DateTimeFormat(locale, today ? { timeStyle: 'short' } : { dateStyle: 'medium' }).format(date);
  };
}

/** The user's conversations, the most recently active first, with their unread counts; or the archived ones. */
export function ConversationList({ archived, onArchivedChange, selectedId, onSelect, onNewChat }: ListProps) {
  const { t } = useTranslation();
  const me = useCurrentUser().id;
  const pages = useConversationPages(archived);
  const when = useActivityTime();
  const conversations = pages.data?.pages.flatMap((page) => page.items) ?? [];

  const body = () => {
    if (pages.isPending) return <Skeleton h={200} m="sm" />;
    if (pages.isError) return <QueryError error={pages.error} onRetry={() => void pages.refetch()} retrying={pages.isFetching} />;
    if (conversations.length === 0) {
      return archived ? (
        <EmptyMessage icon={<IconArchive size={32} aria-hidden />} title={t('messenger.list.noArchived')} description={t('messenger.list.noArchivedHint')} />
      ) : (
        <EmptyMessage
          icon={<IconMessages size={32} aria-hidden />}
          title={t('messenger.list.empty')}
          description={t('messenger.list.emptyHint')}
          action={<Button onClick={onNewChat}>{t('messenger.newChat.open')}</Button>}
        />
      );
    }
    return (
      <ul className={classes.plainList} aria-label={archived ? t('messenger.list.archivedLabel') : t('messenger.list.label')}>
        {conversations.map((conversation) => (
          <li key={conversation.id}>
            <Row conversation={conversation} me={me} selected={conversation.id === selectedId} onSelect={onSelect} when={when} />
          </li>
        ))}
      </ul>
    );
  };

  return (
    <Stack gap={0} className={classes.listPane}>
      <Group p="sm" className={classes.paneHeader}>
        <SegmentedControl
          fullWidth
          style={{ flex: 1 }}
          aria-label={t('messenger.list.show')}
          value={archived ? 'archived' : 'inbox'}
          onChange={(value) => onArchivedChange(value === 'archived')}
          data={[
            { value: 'inbox', label: t('messenger.list.inbox') },
            { value: 'archived', label: t('messenger.list.archived') },
          ]}
        />
      </Group>
      <div className={classes.listScroll}>
        {body()}
        {pages.hasNextPage && (
          <Group justify="center" p="sm">
            <Button variant="subtle" onClick={() => void pages.fetchNextPage()} loading={pages.isFetchingNextPage}>
              {t('messenger.list.more')}
            </Button>
          </Group>
        )}
      </div>
    </Stack>
  );
}

type RowProps = { conversation: Conversation; me: string; selected: boolean; onSelect: (id: string) => void; when: (value: string) => string };

function Row({ conversation, me, selected, onSelect, when }: RowProps) {
  const { t } = useTranslation();
  const title = conversationTitle(conversation, me, t);
  const unread = conversation.unreadCount;
  const group = conversation.kind === 'group';
  return (
    <UnstyledButton
      className={classes.row}
      data-active={selected || undefined}
      aria-current={selected ? 'true' : undefined}
      onClick={() => onSelect(conversation.id)}
      data-testid="conversation-row"
    >
      <Group gap="xs" wrap="nowrap" justify="space-between">
        <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
          {group && <IconUsersGroup size={16} aria-hidden style={{ flex: 'none' }} />}
          <Text fw={unread > 0 ? 700 : 500} truncate>
            {title}
          </Text>
          {group && <VisuallyHidden>{t('messenger.list.groupOf', { count: conversation.members.length })}</VisuallyHidden>}
        </Group>
        {unread > 0 && (
          <>
            <Badge color="red" size="sm" variant="filled" aria-hidden style={{ flex: 'none' }}>
              {unread > 99 ? '99+' : unread}
            </Badge>
            <VisuallyHidden>{t('messenger.list.unread', { count: unread })}</VisuallyHidden>
          </>
        )}
      </Group>
      <Text size="xs" c={selected ? undefined : 'dimmed'}>
        {conversation.lastMessageAt ? t('messenger.list.lastActivity', { when: when(conversation.lastMessageAt) }) : t('messenger.list.noMessages')}
      </Text>
    </UnstyledButton>
  );
}
