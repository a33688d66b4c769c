import { session } from '@/lib/session';
import { messengerApiFor } from './api';
import { Messenger } from './messenger';

let current: Messenger | null = null;

/** The signed-in user's messenger engine in this tab: one at a time, made on first use. */
export function messengerFor(userId: string): Messenger {
  if (!current || current.userId !== userId) current = new Messenger(userId, messengerApiFor(userId));
  return current;
}

// Signing out (or any end of the session) drops the engine and everything it holds in memory:
// unwrapped epoch keys, senders' keys, opened messages, key bytes awaiting a backup. The keys
// stored in IndexedDB stay, for this user's next sign-in in this browser.
session.onEnd(() => {
  current = null;
});

/** For tests: forget the engine as signing out does. */
export const resetMessenger = () => {
  current = null;
};
