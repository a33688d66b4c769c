import { Alert, Button, Center, Group, Loader, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconLock, IconShieldExclamation } from '@tabler/icons-react';
import type { TFunction } from 'i18next';
import { Fragment, type ReactNode, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { markMessageRead } from '@/api/generated/messaging/messaging';
import type { Conversation, Message, UserSummary } from '@/api/generated/model';
import { QueryError } from '@/components/data/QueryError';
import { useFormat } from '@/lib/format';
import { useCurrentUser } from '@/lib/session';
import type { Messenger, Opened } from '../engine/messenger';
import { listNames, useOpened, useRefreshConversation, useTimeline } from '../hooks';
import classes from './messages.module.css';

/** A message on its way (or that failed): shown after the timeline until the server has it. */
export type Outgoing = { id: string; text: string; state: 'sending' | 'failed'; error?: string };

type TimelineProps = {
  messenger: Messenger;
  conversation: Conversation;
  outbox: Outgoing[];
  onRetry: (id: string) => void;
  onDiscard: (id: string) => void;
  /** Others whose keys changed since first seen (pinned). */
  changedKeys: UserSummary[];
  onVerify: (person: UserSummary) => void;
  /** Names of people who are no longer members (system lines still name them). */
  nameOf: (userId: string | null | undefined) => string;
};

/** Near enough to the bottom to count as reading the newest message. */
const BOTTOM_SLACK = 48;

const dayOf = (iso: string) => new Date(iso).toDateString();

function dayLabel(iso: string, locale: string, t: TFunction): string {
  const date = new Date(iso);
  const today = new Date();
  const yesterday = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1);
  if (date.toDateString() === today.toDateString()) return t('messenger.timeline.today');
  if (date.toDateString() === yesterday.toDateString()) return t('messenger.timeline.yesterday');
  return new Intl.DateTimeFormat(locale, { dateStyle: 'full' }).format(date);
}

/** The text of a membership or rename line, from the user's point of view. */
function systemText(message: Message, me: string, nameOf: TimelineProps['nameOf'], t: TFunction): string {
  const actor = nameOf(message.senderId);
  const subject = nameOf(message.subjectId);
  const byMe = message.senderId === me;
  switch (message.kind) {
    case 'member_added':
      if (message.subjectId === me) return t('messenger.system.addedYou', { actor });
      return byMe ? t('messenger.system.addedByYou', { subject }) : t('messenger.system.added', { actor, subject });
    case 'member_removed':
      return byMe ? t('messenger.system.removedByYou', { subject }) : t('messenger.system.removed', { actor, subject });
    case 'member_left':
      return byMe ? t('messenger.system.leftYou') : t('messenger.system.left', { actor });
    case 'renamed':
      return byMe ? t('messenger.system.renamedByYou') : t('messenger.system.renamed', { actor });
    default:
      return t('messenger.system.unknown');
  }
}

/** What a message that cannot be shown as text says instead. */
function unreadable(opened: Opened | undefined, t: TFunction): { icon: ReactNode; text: string } | null {
  if (!opened) return { icon: <Loader size={12} aria-hidden />, text: t('messenger.timeline.opening') };
  switch (opened.state) {
    case 'ok':
      return null;
    case 'unverified':
      return { icon: <IconShieldExclamation size={16} aria-hidden />, text: t('messenger.timeline.unverified') };
    case 'undecryptable':
      return { icon: <IconLock size={16} aria-hidden />, text: t('messenger.timeline.undecryptable') };
    case 'before-keys':
      return { icon: <IconLock size={16} aria-hidden />, text: t('messenger.timeline.beforeKeys') };
    case 'other-browser':
      return { icon: <IconLock size={16} aria-hidden />, text: t('messenger.timeline.otherBrowser') };
    case 'before-joined':
      return { icon: <IconLock size={16} aria-hidden />, text: t('messenger.timeline.beforeJoined') };
    case 'unavailable':
      return { icon: <IconAlertTriangle size={16} aria-hidden />, text: t('messenger.timeline.unavailable') };
  }
}

/**
 * A conversation's messages, oldest at the top: day separators, the user's own messages on the
 * right, membership lines, "Seen by" under the message each member has read up to, key changes.
 * Scrolling to the top loads older messages; the newest is marked read once it is in view while
 * the tab is visible.
 */
export function Timeline({ messenger, conversation, outbox, onRetry, onDiscard, changedKeys, onVerify, nameOf }: TimelineProps) {
  const { t } = useTranslation();
  const { locale } = useFormat();
  const me = useCurrentUser().id;
  const timeline = useTimeline(conversation.id);
  const refresh = useRefreshConversation();
  const messages = useMemo(() => (timeline.data?.pages ?? []).toReversed().flatMap((page) => page.items), [timeline.data]);
  const opened = useOpened(messenger, messages);
  const scroller = useRef<HTMLDivElement>(null);
  const top = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const [inView, setInView] = useState(0); // bumped when the newest may have come into view
  const heightBeforeOlder = useRef<number | null>(null);
  const marked = useRef<string | null>(null);

  const group = conversation.kind === 'group';
  const shown = new Set(messages.map((m) => m.id));
  const waiting = outbox.filter((item) => !shown.has(item.id));
  const newest = messages.at(-1);
  const firstId = messages[0]?.id;
  const lastKey = `${newest?.id}|${waiting.length}|${changedKeys.length}`;

  const loadOlder = () => {
    if (!timeline.hasNextPage || timeline.isFetchingNextPage) return;
    heightBeforeOlder.current = scroller.current?.scrollHeight ?? null;
    void timeline.fetchNextPage();
  };

  // Older messages keep the reader where they were; new ones at the bottom follow a reader who is there.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    if (heightBeforeOlder.current !== null) {
      element.scrollTop += element.scrollHeight - heightBeforeOlder.current;
      heightBeforeOlder.current = null;
    } else if (atBottom.current) {
      element.scrollTop = element.scrollHeight;
    }
  }, [firstId, lastKey]);

  // The top of the timeline in view: load older messages.
  useEffect(() => {
    const sentinel = top.current;
    if (!sentinel || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) loadOlder();
    });
    observer.observe(sentinel);
    return () => observer.disconnect();
  });

  useEffect(() => {
    const onVisible = () => setInView((n) => n + 1);
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, []);

  // The newest message is in view and the tab visible: mark it read.
  const ownMark = conversation.readMarks.find((mark) => mark.userId === me)?.messageId;
  useEffect(() => {
    if (!newest || newest.senderId === me || ownMark === newest.id || marked.current === newest.id) return;
    if (!atBottom.current || document.visibilityState !== 'visible') return;
    marked.current = newest.id;
    markMessageRead(newest.id).then(
      () => void refresh(conversation.id),
      () => {
        marked.current = null;
      },
    );
  }, [newest, ownMark, me, inView, conversation.id, refresh]);

  const onScroll = () => {
    const element = scroller.current;
    if (!element) return;
    const bottom = element.scrollHeight - element.scrollTop - element.clientHeight < BOTTOM_SLACK;
    if (bottom !== atBottom.current) {
      atBottom.current = bottom;
      if (bottom) setInView((n) => n + 1);
    }
  };

  if (timeline.isPending) {
    return (
      <Center className={classes.timeline}>
        <Loader role="status" aria-label={t('messenger.timeline.loading')} />
      </Center>
    );
  }
  if (timeline.isError) {
    return (
      <div className={classes.timeline}>
        <QueryError error={timeline.error} onRetry={() => void timeline.refetch()} retrying={timeline.isFetching} />
      </div>
    );
  }

  // Who has read up to where (others, members still here): under the last message they read that
  // someone else wrote (their own messages need no receipt).
  const members = new Map(conversation.members.map((m) => [m.id, m.fullName]));
  const seenBy = new Map<string, string[]>();
  for (const mark of conversation.readMarks) {
    const name = members.get(mark.userId);
    if (mark.userId === me || !name) continue;
    let index = messages.findIndex((m) => m.id === mark.messageId);
    while (index >= 0 && (messages[index].kind !== 'message' || messages[index].senderId === mark.userId)) index -= 1;
    if (index < 0) continue;
    const at = messages[index].id;
    seenBy.set(at, [...(seenBy.get(at) ?? []), name]);
  }

  const time = new Intl.DateTimeFormat(locale, { timeStyle: 'short' });
  // Another's messages signed with a newer key version than their previous one.
  const newKeys = new Set<string>();
  const lastVersion = new Map<string, number>();
  for (const message of messages) {
    if (message.kind !== 'message' || !message.senderId) continue;
    const version = message.senderKeyVersion ?? 0;
    const before = lastVersion.get(message.senderId);
    if (message.senderId !== me && before !== undefined && version > before) newKeys.add(message.id);
    lastVersion.set(message.senderId, version);
  }

  return (
    <div ref={scroller} className={classes.timeline} onScroll={onScroll} role="log" aria-label={t('messenger.timeline.label')} tabIndex={0}>
      <div ref={top} />
      {timeline.hasNextPage ? (
        <Group justify="center" py="xs">
          <Button variant="subtle" size="xs" onClick={loadOlder} loading={timeline.isFetchingNextPage}>
            {t('messenger.timeline.older')}
          </Button>
        </Group>
      ) : (
        <Text size="xs" c="dimmed" ta="center" py="xs">
          {messages.length === 0 ? t('messenger.timeline.empty') : t('messenger.timeline.start')}
        </Text>
      )}
      <ol className={classes.plainList}>
        {messages.map((message, index) => {
          const previous = messages[index - 1] as Message | undefined;
          const newDay = !previous || dayOf(previous.createdAt) !== dayOf(message.createdAt);
          const sameSender = !newDay && previous?.kind === 'message' && previous.senderId === message.senderId;
          const day = newDay && (
            <li className={classes.day}>
              <Text size="xs" fw={600} c="dimmed" component="span">
                {dayLabel(message.createdAt, locale, t)}
              </Text>
            </li>
          );
          const seen = seenBy.get(message.id);
          const receipt = seen && (
            <li className={classes.receipt}>
              <Text size="xs" c="dimmed" component="span">
                {t('messenger.timeline.seenBy', { names: listNames(seen, locale) })}
              </Text>
            </li>
          );
          if (message.kind !== 'message') {
            return (
              <Fragment key={message.id}>
                {day}
                <li className={classes.system}>
                  <Text size="sm" c="dimmed" component="span">
                    {systemText(message, me, nameOf, t)} · {time.format(new Date(message.createdAt))}
                  </Text>
                </li>
                {receipt}
              </Fragment>
            );
          }
          const mine = message.senderId === me;
          const keysChanged = newKeys.has(message.id);
          const state = opened(message.id);
          const problem = unreadable(state, t);
          return (
            <Fragment key={message.id}>
              {day}
              {keysChanged && (
                <li className={classes.system}>
                  <Text size="sm" c="dimmed" component="span">
                    {t('messenger.timeline.newKeys', { name: nameOf(message.senderId) })}
                  </Text>
                </li>
              )}
              <li className={mine ? classes.mine : classes.theirs} data-testid="message">
                {group && !mine && (!sameSender || keysChanged) && (
                  <Text size="xs" fw={600} className={classes.sender}>
                    {nameOf(message.senderId)}
                  </Text>
                )}
                <div className={classes.bubble} data-problem={problem ? true : undefined}>
                  {problem ? (
                    <Group gap={6} wrap="nowrap" component="span" data-testid="message-problem">
                      {problem.icon}
                      <span>{problem.text}</span>
                    </Group>
                  ) : (
                    <span className={classes.text}>{state?.state === 'ok' ? state.text : ''}</span>
                  )}
                  <Text component="span" size="xs" className={classes.time}>
                    {mine ? <span className={classes.srOnly}>{t('messenger.timeline.you')} </span> : null}
                    {time.format(new Date(message.createdAt))}
                  </Text>
                </div>
              </li>
              {receipt}
            </Fragment>
          );
        })}
        {waiting.map((item) => (
          <li key={item.id} className={classes.mine} data-testid="outgoing">
            <div className={classes.bubble} data-pending>
              <span className={classes.text}>{item.text}</span>
            </div>
            {item.state === 'sending' ? (
              <Text size="xs" c="dimmed">
                {t('messenger.composer.sending')}
              </Text>
            ) : (
              <Stack gap={2} align="flex-end">
                <Text size="xs" c="red" role="alert">
                  {t('messenger.composer.failed', { reason: item.error })}
                </Text>
                <Group gap="xs">
                  <Button size="compact-xs" variant="light" onClick={() => onRetry(item.id)}>
                    {t('messenger.composer.retry')}
                  </Button>
                  <Button size="compact-xs" variant="subtle" color="gray" onClick={() => onDiscard(item.id)}>
                    {t('messenger.composer.discard')}
                  </Button>
                </Group>
              </Stack>
            )}
          </li>
        ))}
        {changedKeys.map((person) => (
          <li key={`keys-${person.id}`} className={classes.notice}>
            <Alert color="orange" variant="light" icon={<IconShieldExclamation aria-hidden />} p="xs">
              <Stack gap={4} align="flex-start">
                <Text size="sm">{t('messenger.safety.changedLine', { name: person.fullName })}</Text>
                <Button size="compact-xs" variant="white" color="orange" onClick={() => onVerify(person)}>
                  {t('messenger.safety.verify')}
                </Button>
              </Stack>
            </Alert>
          </li>
        ))}
      </ol>
    </div>
  );
}
