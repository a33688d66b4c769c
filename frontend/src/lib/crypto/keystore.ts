/**
 * This browser's messenger keys, in IndexedDB (through idb-keyval): each key version's pairs as
 * non-extractable CryptoKeys, the derived backup key, and the fingerprints pinned for other
 * people (the first keys seen of each). Nothing here can be exported as bytes.
 */
import { createStore, del, get, set, type UseStore } from 'idb-keyval';
import type { KeyPairs, PublicKeys } from './keys';

export type StoredVersion = { version: number; keys: KeyPairs; publicKeys: PublicKeys };
export type StoredBackupKey = { key: CryptoKey; salt: string; iterations: number };

let store: UseStore | undefined;
const db = () => (store ??= createStore('emp-messenger', 'keys'));

/** Every key version held here, newest first. */
export async function loadVersions(userId: string): Promise<StoredVersion[]> {
  const versions = (await get<StoredVersion[]>(`keys:${userId}`, db())) ?? [];
  return [...versions].sort((a, b) => b.version - a.version);
}

export async function saveVersion(userId: string, entry: StoredVersion): Promise<void> {
  const others = (await loadVersions(userId)).filter((v) => v.version !== entry.version);
  await set(`keys:${userId}`, [entry, ...others], db());
}

export const loadBackupKey = (userId: string) => get<StoredBackupKey>(`backup-key:${userId}`, db());

export const saveBackupKey = (userId: string, entry: StoredBackupKey) => set(`backup-key:${userId}`, entry, db());

export async function loadPins(userId: string): Promise<Record<string, string>> {
  return (await get<Record<string, string>>(`pins:${userId}`, db())) ?? {};
}

export async function savePin(userId: string, otherId: string, fingerprint: string): Promise<void> {
  await set(`pins:${userId}`, { ...(await loadPins(userId)), [otherId]: fingerprint }, db());
}

/** Forgets this browser's keys for the user (a fresh start: older messages become unreadable here). */
export async function forget(userId: string): Promise<void> {
  await Promise.all([del(`keys:${userId}`, db()), del(`backup-key:${userId}`, db()), del(`pins:${userId}`, db())]);
}

/** Asks the browser not to evict the keys under storage pressure (best effort). */
export async function persistStorage(): Promise<boolean> {
  return (await navigator.storage?.persist?.()) ?? false;
}
