/**
 * A stand-in for lib/crypto in the screens' jsdom tests, where WebCrypto cannot run (jsdom's typed
 * arrays come from another realm). Its "ciphertext" is the text in base64 and its keys are labels:
 * the screens and the engine's logic run for real, the cryptography is proven elsewhere
 * (src/lib/crypto/*.test.ts, engine/messenger.test.ts and e2e/messages.spec.ts).
 */
import type * as Crypto from '@/lib/crypto';
import type { StoredBackupKey, StoredVersion } from '@/lib/crypto/keystore';

type Real = typeof Crypto;

type Key = { label: string };
const key = (label: string) => ({ label }) as Key & CryptoKey;

let made = 0;
let versions = new Map<string, StoredVersion[]>();
let backupKeys = new Map<string, StoredBackupKey>();
let pins = new Map<string, Record<string, string>>();

/** Forgets every stored key (each test starts with an empty browser). */
export function resetFakeCrypto() {
  made = 0;
  versions = new Map();
  backupKeys = new Map();
  pins = new Map();
}

const encode = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
const decode = (base64: string) => new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));

/** The fake ciphertext of a text (what the fake sealMessage sends). */
export const fakeCiphertext = (text: string) => encode(JSON.stringify({ text }));

/** The public keys a fake key pair of `label` has. */
export const fakePublicKeys = (label: string) => ({ agreementKey: `agree-${label}`, signingKey: `sign-${label}` });

/** The keys a user holds in this (fake) browser: `label` names their public keys. */
export function storeFakeVersion(userId: string, version: number, label: string) {
  const publicKeys = fakePublicKeys(label);
  const pair = (name: string) => ({ publicKey: key(`${name}-pub-${label}`), privateKey: key(`${name}-priv-${label}`) });
  versions.set(userId, [{ version, keys: { agreement: pair('agree'), signing: pair('sign') }, publicKeys }, ...(versions.get(userId) ?? [])]);
}

/**
 * The module to mock lib/crypto with, from the real one (its encodings, errors and constants stay):
 * `vi.mock('@/lib/crypto', async (original) => fakeCryptoModule(await original()))`.
 */
export const fakeCryptoModule = (real: Real) => ({
  ...real,
  generateKeys: async () => {
    made += 1;
    const label = `new${made}`;
    const pair = (name: string) => ({ publicKey: key(`${name}-pub-${label}`), privateKey: key(`${name}-priv-${label}`) });
    return { keys: { agreement: pair('agree'), signing: pair('sign') }, publicKeys: fakePublicKeys(label), exported: { agreement: label, signing: label } };
  },
  importPublicKeys: async (keys: Crypto.PublicKeys) => ({ agreement: key(keys.agreementKey), signing: key(keys.signingKey) }),
  importPrivateKeys: async (exported: Crypto.ExportedKeys, publicKeys: Crypto.PublicKeys) => ({
    agreement: { publicKey: key(publicKeys.agreementKey), privateKey: key(exported.agreement) },
    signing: { publicKey: key(publicKeys.signingKey), privateKey: key(exported.signing) },
  }),
  newEpochKey: () => new Uint8Array(32),
  importEpochKey: async () => key('epoch'),
  wrapEpochKey: async (_raw: Uint8Array, recipient: Crypto.EpochRecipient) => encode(`wrapped:${recipient.userId}:${recipient.epoch}`),
  unwrapEpochKey: async (_wrapped: string, recipient: Crypto.EpochRecipient) => key(`epoch-${recipient.epoch}`),
  sealMessage: async (content: Crypto.MessageContent) => ({ iv: 'AAAAAAAAAAAAAAAA', ciphertext: fakeCiphertext(content.text), signature: 'c2ln' }),
  openMessage: async (sealed: Crypto.SealedMessage) => {
    if (sealed.signature === 'forged') throw new real.MessageError('signature');
    return JSON.parse(decode(sealed.ciphertext)) as Crypto.MessageContent;
  },
  deriveBackupKey: async (passphrase: string) => key(`backup:${passphrase}`),
  sealBackup: async (contents: Crypto.BackupContents, backupKey: Key) => ({
    salt: 'c2FsdHNhbHRzYWx0c2FsdA==',
    iterations: real.BACKUP_ITERATIONS,
    iv: 'AAAAAAAAAAAAAAAA',
    ciphertext: encode(JSON.stringify({ by: backupKey.label, contents })),
  }),
  openBackup: async (sealed: Crypto.SealedBackup, backupKey: Key) => {
    const { by, contents } = JSON.parse(decode(sealed.ciphertext)) as { by: string; contents: Crypto.BackupContents };
    if (by !== backupKey.label) throw new real.WrongPassphraseError();
    return contents;
  },
  keyFingerprint: async (keys: Crypto.PublicKeys) => keys.agreementKey,
  safetyNumber: async () => '123456789012345678901234567890123456789012345678901234567890',
  keystore: {
    loadVersions: async (userId: string) => [...(versions.get(userId) ?? [])].sort((a, b) => b.version - a.version),
    saveVersion: async (userId: string, entry: StoredVersion) => {
      versions.set(userId, [entry, ...(versions.get(userId) ?? []).filter((v) => v.version !== entry.version)]);
    },
    loadBackupKey: async (userId: string) => backupKeys.get(userId),
    saveBackupKey: async (userId: string, entry: StoredBackupKey) => {
      backupKeys.set(userId, entry);
    },
    loadPins: async (userId: string) => pins.get(userId) ?? {},
    savePin: async (userId: string, otherId: string, fingerprint: string) => {
      pins.set(userId, { ...(pins.get(userId) ?? {}), [otherId]: fingerprint });
    },
    forget: async (userId: string) => {
      versions.delete(userId);
      backupKeys.delete(userId);
      pins.delete(userId);
    },
    persistStorage: async () => true,
  },
});

/** A backup as the fake sealBackup makes it: `passphrase` opens it; it holds these fake key versions. */
export function fakeBackup(userId: string, passphrase: string, labels: Record<number, string>) {
  const versions = Object.entries(labels).map(([version, label]) => ({
    version: Number(version),
    exported: { agreement: label, signing: label },
    publicKeys: fakePublicKeys(label),
  }));
  return {
    salt: 'c2FsdHNhbHRzYWx0c2FsdA==',
    iterations: 600_000,
    iv: 'AAAAAAAAAAAAAAAA',
    ciphertext: encode(JSON.stringify({ by: `backup:${passphrase}`, contents: { userId, versions } })),
  };
}
