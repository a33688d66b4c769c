import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { deriveBackupKey, newBackupSalt, openBackup, sealBackup, WrongPassphraseError } from './backup';
import { fromBase64 } from './encoding';
import { newEpochKey, unwrapEpochKey, wrapEpochKey } from './epoch';
import { generateKeys, importPrivateKeys } from './keys';
import * as keystore from './keystore';

describe('key backup', () => {
  it('restores the private keys on a fresh store, which then opens an epoch key wrapped before', async () => {
    const [alice, bob] = await Promise.all([generateKeys(), generateKeys()]);
    const salt = newBackupSalt();
    const key = await deriveBackupKey('correct horse battery staple', salt);
    const sealed = await sealBackup({ userId: 'alice', versions: [{ version: 1, exported: alice.exported, publicKeys: alice.publicKeys }] }, key, salt);
    expect(sealed.iterations).toBeGreaterThanOrEqual(600_000);
    expect(fromBase64(sealed.salt)).toHaveLength(16);
    const recipient = { conversationId: 'c', epoch: 1, userId: 'alice', keyVersion: 1 };
    const wrapped = await wrapEpochKey(newEpochKey(), recipient, alice.keys.agreement.publicKey, bob.keys.agreement);

    // A new browser: nothing stored, the passphrase typed again.
    await keystore.forget('alice');
    expect(await keystore.loadVersions('alice')).toEqual([]);
    const again = await deriveBackupKey('correct horse battery staple', fromBase64(sealed.salt), sealed.iterations);
    const contents = await openBackup(sealed, again, 'alice');
    const [entry] = contents.versions;
    const restored = await importPrivateKeys(entry.exported, entry.publicKeys);
    await keystore.saveVersion('alice', { version: entry.version, keys: restored, publicKeys: entry.publicKeys });
    const [stored] = await keystore.loadVersions('alice');
    expect(stored.version).toBe(1);
    expect(stored.keys.agreement.privateKey.extractable).toBe(false);
    await expect(unwrapEpochKey(wrapped, recipient, stored.keys.agreement, bob.keys.agreement.publicKey)).resolves.toBeDefined();
  });

  it('refuses a wrong passphrase and a backup of someone else', async () => {
    const alice = await generateKeys();
    const salt = newBackupSalt();
    const sealed = await sealBackup(
      { userId: 'alice', versions: [{ version: 1, exported: alice.exported, publicKeys: alice.publicKeys }] },
      await deriveBackupKey('right passphrase', salt),
      salt,
    );
    await expect(openBackup(sealed, await deriveBackupKey('wrong passphrase', salt), 'alice')).rejects.toBeInstanceOf(WrongPassphraseError);
    await expect(openBackup(sealed, await deriveBackupKey('right passphrase', salt), 'mallory')).rejects.toBeInstanceOf(WrongPassphraseError);
  });
});
