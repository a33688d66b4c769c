import { useSyncExternalStore } from 'react';
import type { User } from '@/api/generated/model';
import { navigateOutside } from './navigation';
import { STORAGE_KEYS, itemArea, readItem, removeItem, writeItem } from './storage';

/**
 * What the sign-in page says of a session that ended under the user: it ran out (`expired`: its
 * time or idleness, or a 401), or the server ended it (the realtime `session.ended` event's
 * reason): someone ended it (`ended`: an administrator, or the person from another session), the
 * account or the enterprise was deactivated, or the role changed.
 */
export type SessionEndNotice = 'expired' | 'ended' | 'user_deactivated' | 'enterprise_deactivated' | 'role_changed';

export type SessionEndReason = 'signed_out' | 'unverified' | SessionEndNotice;

export type SessionState = { status: 'signed_in'; token: string; user: User } | { status: 'signed_out'; reason?: SessionEndReason };

type Listener = () => void;

const listeners = new Set<Listener>();
const endListeners = new Set<Listener>();

function parseUser(text: string | null): User | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && 'id' in value && 'role' in value ? (value as User) : null;
  } catch {
    return null;
  }
}

/** Reads the stored token and user; null when only one of them is there (or unreadable). */
function readStored(): SessionState | null {
  const token = readItem(STORAGE_KEYS.token);
  const userText = readItem(STORAGE_KEYS.user);
  if (!token && !userText) return { status: 'signed_out' };
  const user = parseUser(userText);
  return token && user ? { status: 'signed_in', token, user } : null;
}

/** On start: restore both, or clear a half-written pair. */
function restore(): SessionState {
  const stored = readStored();
  if (stored) return stored;
  removeItem(STORAGE_KEYS.token);
  removeItem(STORAGE_KEYS.user);
  return { status: 'signed_out' };
}

let state: SessionState = restore();

function set(next: SessionState): void {
  const wasSignedIn = state.status === 'signed_in';
  state = next;
  listeners.forEach((listener) => listener());
  if (wasSignedIn && next.status === 'signed_out') endListeners.forEach((listener) => listener());
}

export const session = {
  get: (): SessionState => state,

  token: (): string | null => (state.status === 'signed_in' ? state.token : readItem(STORAGE_KEYS.token)),

  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },

  /** Runs whenever a signed-in session ends (sign-out, 401, another tab): reset client state here. */
  onEnd(listener: Listener): () => void {
    endListeners.add(listener);
    return () => endListeners.delete(listener);
  },

  /**
   * A remembered sign-in is kept in localStorage (it outlives the browser, and other tabs follow
   * it); any other in sessionStorage, so it dies with the browser.
   */
  start(token: string, user: User, remember = false): void {
    const where = remember ? 'local' : 'session';
    writeItem(STORAGE_KEYS.token, token, where);
    writeItem(STORAGE_KEYS.user, JSON.stringify(user), where);
    set({ status: 'signed_in', token, user });
  },

  updateUser(user: User): void {
    if (state.status !== 'signed_in') return;
    writeItem(STORAGE_KEYS.user, JSON.stringify(user), itemArea(STORAGE_KEYS.token) ?? 'session');
    set({ ...state, user });
  },

  end(reason: SessionEndReason): void {
    removeItem(STORAGE_KEYS.token);
    removeItem(STORAGE_KEYS.user);
    if (state.status === 'signed_in') set({ status: 'signed_out', reason });
  },

  /**
   * A 401, or the server saying the session ended: the token is dead. Clear it and go to the
   * sign-in page, remembering where we were and why (`ended`: what the sign-in page tells).
   */
  expire(ended: SessionEndNotice = 'expired'): void {
    const hadSession = state.status === 'signed_in';
    session.end(ended);
    if (window.location.pathname !== '/login') {
      const { pathname, search, hash } = window.location;
      navigateOutside('/login', hadSession ? { from: { pathname, search, hash }, reason: ended } : undefined);
    }
  },

  /** Re-reads storage after another tab changed it (it writes token and user one at a time). */
  reload(): void {
    const next = readStored();
    if (!next) return;
    if (next.status === 'signed_in') {
      if (state.status !== 'signed_in' || state.token !== next.token || JSON.stringify(state.user) !== JSON.stringify(next.user)) set(next);
    } else if (state.status === 'signed_in') {
      set({ status: 'signed_out', reason: 'signed_out' });
    }
  },
};

// Another tab signed in or out: follow it.
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    if (event.key === null || event.key === STORAGE_KEYS.token || event.key === STORAGE_KEYS.user) session.reload();
  });
}

export function useSession(): SessionState {
  return useSyncExternalStore(session.subscribe, session.get);
}

/** The signed-in user; only for screens behind the auth guard. */
export function useCurrentUser(): User {
  const current = useSession();
  if (current.status !== 'signed_in') throw new Error('useCurrentUser() outside a signed-in route');
  return current.user;
}

/**
 * The notice for why the server ended a session (openapi.json, `Session.endReason`): the socket's
 * `session.ended` event's reason, or a 401 `session_expired`'s, whichever the tab hears first.
 */
export function endNotice(reason: unknown): SessionEndNotice {
  switch (reason) {
    case 'user_deactivated':
    case 'enterprise_deactivated':
    case 'role_changed':
      return reason;
    case 'revoked':
    case 'deleted':
    case 'logout':
    case 'provider_logout':
      return 'ended';
    default:
      return 'expired';
  }
}
