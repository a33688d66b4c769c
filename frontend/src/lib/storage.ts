/**
 * The only storage keys the app uses (SPEC §9), and `device`: the device token the server gave
 * this browser at its last sign-in, sent with the next one (the server's sign-in limits treat a
 * browser that signed in before apart from strangers). It outlives signing out. And `sso-state`,
 * in the tab's session storage only: the single sign-on it started (features/auth/sso-sign-in.ts).
 */
export const STORAGE_KEYS = { token: 'token', user: 'user', locale: 'locale', device: 'device', ssoState: 'sso-state' } as const;

type StorageKey = (typeof STORAGE_KEYS)[keyof typeof STORAGE_KEYS];

/**
 * Where a value lives: `local` survives the browser (the language, a remembered sign-in);
 * `session` dies with the tab and the browser (a sign-in without "remember me").
 */
export type StorageArea = 'local' | 'session';

function area(where: StorageArea): Storage {
  return where === 'local' ? window.localStorage : window.sessionStorage;
}

// Storage can throw (disabled cookies, private mode quotas): treat that as "nothing stored".

/** The value, from the tab's session storage first, then local storage. */
export function readItem(key: StorageKey): string | null {
  for (const where of ['session', 'local'] as const) {
    try {
      const value = area(where).getItem(key);
      if (value !== null) return value;
    } catch {
      // Unreadable here; try the other.
    }
  }
  return null;
}

/** Writes the value in one area and removes it from the other, so a key lives in one place. */
export function writeItem(key: StorageKey, value: string, where: StorageArea = 'local'): void {
  try {
    area(where).setItem(key, value);
    area(where === 'local' ? 'session' : 'local').removeItem(key);
  } catch {
    // Not persisted; the in-memory state still works for this tab.
  }
}

/** The area holding the key, if any. */
export function itemArea(key: StorageKey): StorageArea | null {
  try {
    if (window.sessionStorage.getItem(key) !== null) return 'session';
    if (window.localStorage.getItem(key) !== null) return 'local';
  } catch {
    // Nothing readable.
  }
  return null;
}

export function removeItem(key: StorageKey): void {
  for (const where of ['session', 'local'] as const) {
    try {
      area(where).removeItem(key);
    } catch {
      // Nothing to remove.
    }
  }
}
