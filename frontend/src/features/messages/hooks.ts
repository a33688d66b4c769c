import { type InfiniteData, useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useEffect, useReducer, useSyncExternalStore } from 'react';
import { getListConversationsQueryKey, getListMessagesQueryKey, listConversations, listMessages } from '@/api/generated/messaging/messaging';
import type { Conversation, Message, MessagePage, PageConversation, UserSummary } from '@/api/generated/model';
import { touchesConversation } from '@/lib/messaging-live';
import { useCurrentUser } from '@/lib/session';
import { messengerFor } from './engine/instance';
import type { Messenger, MessengerStatus, Opened } from './engine/messenger';

/** Messages fetched per page of the timeline. */
export const PAGE_SIZE = 50;
/** Conversations fetched per page of the list. */
export const CONVERSATIONS_PER_PAGE = 30;
/** The longest message the composer takes. */
export const MAX_MESSAGE_LENGTH = 10_000;

/** The signed-in user's engine. */
export function useMessenger(): Messenger {
  return messengerFor(useCurrentUser().id);
}

export function useMessengerStatus(messenger: Messenger): MessengerStatus {
  return useSyncExternalStore(
    (listener) => messenger.subscribe(listener),
    () => messenger.status,
  );
}

/** Refetches what a change in the conversation touches (list, detail, timeline, unread total). */
export function useRefreshConversation() {
  const client = useQueryClient();
  return (conversationId: string) => client.invalidateQueries({ predicate: touchesConversation(conversationId) });
}

/** The conversation list, archived or not, a page at a time (the most recently active first). */
export function useConversationPages(archived: boolean) {
  return useInfiniteQuery<PageConversation, Error, InfiniteData<PageConversation>, readonly unknown[], number>({
    queryKey: [...getListConversationsQueryKey({ archived }), 'pages'],
    queryFn: ({ pageParam, signal }) => listConversations({ archived, page: pageParam, pageSize: CONVERSATIONS_PER_PAGE }, { signal }),
    initialPageParam: 1,
    getNextPageParam: (last, all) => (all.length * CONVERSATIONS_PER_PAGE < last.total ? all.length + 1 : undefined),
  });
}

/** The timeline, newest page first; older pages come with `fetchNextPage` (`before` the oldest loaded). */
export function useTimeline(conversationId: string) {
  return useInfiniteQuery<MessagePage, Error, InfiniteData<MessagePage>, readonly unknown[], string | undefined>({
    queryKey: [...getListMessagesQueryKey(conversationId), 'timeline'],
    queryFn: ({ pageParam, signal }) => listMessages(conversationId, { before: pageParam, limit: PAGE_SIZE }, { signal }),
    initialPageParam: undefined,
    getNextPageParam: (last) => (last.hasMore ? last.items[0]?.id : undefined),
  });
}

/** Opens the messages (signature, then decryption) as they arrive; `opened(id)` is undefined while one is being checked. */
export function useOpened(messenger: Messenger, messages: Message[]): (id: string) => Opened | undefined {
  const [, changed] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    let live = true;
    for (const message of messages) {
      if (message.kind !== 'message' || messenger.peek(message.id)) continue;
      void messenger.open(message).then(() => live && changed());
    }
    return () => {
      live = false;
    };
  }, [messenger, messages]);
  return (id) => messenger.peek(id);
}

/** The others in a conversation. */
export const othersIn = (conversation: Conversation, me: string): UserSummary[] => conversation.members.filter((m) => m.id !== me);

/** A group's name, or the other person's for a direct conversation. */
export function conversationTitle(conversation: Conversation, me: string, t: TFunction): string {
  if (conversation.kind === 'group') return conversation.name ?? t('messenger.list.unnamedGroup');
  return othersIn(conversation, me)[0]?.fullName ?? t('messenger.formerMember');
}

/** "Ann, Bob and Carl" in the interface language. */
export const listNames = (names: string[], locale: string): string => new Intl.ListFormat(locale, { type: 'conjunction' }).format(names);
