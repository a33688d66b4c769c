/**
 * The messenger's live events (from the tab's socket, lib/realtime.ts): they refresh the
 * messaging queries they concern (conversation list, the conversation, its timeline, the unread
 * total in the sidebar) and keep who is typing where, for a few seconds. Loaded with the
 * signed-in frame: nothing here touches cryptography.
 */
import type { Query, QueryClient } from '@tanstack/react-query';
import type { RealtimeEvent } from './realtime';
import { session } from './session';

const API = '/api/v1/messaging';
/** How long "X is typing…" stays after the last typing event. */
export const TYPING_MS = 5000;

const MESSAGING_EVENTS = ['message.created', 'message.read', 'conversation.changed', 'conversation.typing'] as const;
export type MessagingEvent = RealtimeEvent & { type: (typeof MESSAGING_EVENTS)[number]; conversationId: string };

export const isMessagingEvent = (event: RealtimeEvent): event is MessagingEvent =>
  (MESSAGING_EVENTS as readonly string[]).includes(event.type) && typeof event.conversationId === 'string';

const pathOf = (query: Query): string => (typeof query.queryKey[0] === 'string' ? query.queryKey[0] : '');

/** The queries a change in one conversation makes stale: the lists, that conversation (its detail, timeline, keys) and the unread total. */
export const touchesConversation =
  (conversationId: string) =>
  (query: Query): boolean => {
    const path = pathOf(query);
    return path === `${API}/conversations` || path === `${API}/unread` || path.startsWith(`${API}/conversations/${conversationId}`);
  };

// --- who is typing ----------------------------------------------------------------------------

const timers = new Map<string, ReturnType<typeof setTimeout>>();
const typingNow = new Map<string, readonly string[]>();
const typingListeners = new Set<() => void>();
const NOBODY: readonly string[] = [];

function setTyping(conversationId: string, userId: string, on: boolean): void {
  const id = `${conversationId}\u0000${userId}`;
  clearTimeout(timers.get(id));
  timers.delete(id);
  const before = typingNow.get(conversationId) ?? NOBODY;
  const after = on ? (before.includes(userId) ? before : [...before, userId]) : before.filter((u) => u !== userId);
  if (on)
    timers.set(
      id,
      setTimeout(() => setTyping(conversationId, userId, false), TYPING_MS),
    );
  if (after === before || (after.length === before.length && after.every((u, i) => u === before[i]))) return;
  if (after.length === 0) typingNow.delete(conversationId);
  else typingNow.set(conversationId, after);
  typingListeners.forEach((listener) => listener());
}

export const typing = {
  subscribe(listener: () => void): () => void {
    typingListeners.add(listener);
    return () => typingListeners.delete(listener);
  },
  /** Who is typing in the conversation now (a stable array between changes). */
  in: (conversationId: string): readonly string[] => typingNow.get(conversationId) ?? NOBODY,
  start: (conversationId: string, userId: string) => setTyping(conversationId, userId, true),
  stop: (conversationId: string, userId: string) => setTyping(conversationId, userId, false),
  clear(): void {
    timers.forEach((timer) => clearTimeout(timer));
    timers.clear();
    typingNow.clear();
    typingListeners.forEach((listener) => listener());
  },
};

// --- events -----------------------------------------------------------------------------------

const eventListeners = new Set<(event: MessagingEvent) => void>();

/** The messenger's screens hear each event too (to forget a conversation's keys when it changed). */
export function onMessagingEvent(listener: (event: MessagingEvent) => void): () => void {
  eventListeners.add(listener);
  return () => eventListeners.delete(listener);
}

/** An event from the socket: refresh what it concerns, note the typing. */
export function handleMessagingEvent(client: QueryClient, event: MessagingEvent): void {
  const userId = typeof event.userId === 'string' ? event.userId : typeof event.senderId === 'string' ? event.senderId : undefined;
  if (event.type === 'conversation.typing') {
    if (userId) typing.start(event.conversationId, userId);
  } else {
    // A message ends its author's typing.
    if (event.type === 'message.created' && userId) typing.stop(event.conversationId, userId);
    void client.invalidateQueries({ predicate: touchesConversation(event.conversationId) });
  }
  eventListeners.forEach((listener) => listener(event));
}

session.onEnd(() => typing.clear());
