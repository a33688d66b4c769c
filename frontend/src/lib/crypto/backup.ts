/**
 * Key backup: the private keys of every key version this browser made or restored, encrypted
 * with AES-256-GCM under a key derived from a passphrase (PBKDF2-SHA-256, 600,000 iterations, a
 * random 16-byte salt). The derived key is kept (non-extractable) so later key versions join the
 * backup without asking again. Epoch keys need no copy: the server keeps them wrapped for the
 * user's agreement keys, which the backup restores.
 */
import { type Bytes, context, fromBase64, fromUtf8, randomBytes, toBase64, utf8 } from './encoding';
import type { ExportedKeys, PublicKeys } from './keys';

export const BACKUP_ITERATIONS = 600_000;

/** What a backup holds: for each key version, its private keys and public points. */
export type BackupContents = { userId: string; versions: { version: number; exported: ExportedKeys; publicKeys: PublicKeys }[] };

/** The stored form, as the API carries it. */
export type SealedBackup = { salt: string; iterations: number; iv: string; ciphertext: string };

export async function deriveBackupKey(passphrase: string, salt: Bytes, iterations = BACKUP_ITERATIONS): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey('raw', utf8(passphrase.normalize('NFKC')), 'PBKDF2', false, ['deriveKey']);
  return crypto.subtle.deriveKey({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, material, { name: 'AES-GCM', length: 256 }, false, [
    'encrypt',
    'decrypt',
  ]);
}

export const newBackupSalt = (): Bytes => randomBytes(16);

const additionalData = (userId: string) => context('key-backup', 1, userId);

export async function sealBackup(contents: BackupContents, key: CryptoKey, salt: Bytes, iterations = BACKUP_ITERATIONS): Promise<SealedBackup> {
  const iv = randomBytes(12);
  const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: additionalData(contents.userId) }, key, utf8(JSON.stringify(contents)));
  return { salt: toBase64(salt), iterations, iv: toBase64(iv), ciphertext: toBase64(ct) };
}

/** Thrown when the passphrase is wrong (or the backup was changed). */
export class WrongPassphraseError extends Error {
  constructor() {
    super('the passphrase does not open this backup');
  }
}

export async function openBackup(sealed: SealedBackup, key: CryptoKey, userId: string): Promise<BackupContents> {
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: fromBase64(sealed.iv), additionalData: additionalData(userId) },
      key,
      fromBase64(sealed.ciphertext),
    );
    const contents = JSON.parse(fromUtf8(plain)) as BackupContents;
    if (contents.userId !== userId || !Array.isArray(contents.versions)) throw new WrongPassphraseError();
    return contents;
  } catch {
    throw new WrongPassphraseError();
  }
}
