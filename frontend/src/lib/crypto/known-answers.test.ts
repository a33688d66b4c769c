import { describe, expect, it, vi } from 'vitest';
import { WrongPassphraseError, deriveBackupKey, openBackup, sealBackup } from './backup';
import { type Bytes, fromBase64, fromUtf8, toBase64, utf8 } from './encoding';
import { epochInfo, importEpochKey, suite, unwrapEpochKey, wrapEpochKey, type EpochRecipient } from './epoch';
import { importPrivateKeys, publicKeysOf } from './keys';
import { KAT } from './known-answer-vectors';
import { MessageError, openMessage, sealMessage, type MessageContext } from './message';
import { keyFingerprint, safetyNumber } from './safety';
import { supplyRandom } from './known-answer-random';

/*
 * Known answers for the messenger's own constructions (docs/messenger-crypto.md): fixed keys,
 * IVs, salts and inputs in, exact bytes out. The expected bytes (./known-answer-vectors.ts) were
 * computed once by scripts/messenger-known-answers.py, an implementation of the same document in
 * Python's `cryptography` (HPKE written from RFC 9180 and checked against its vectors), never by
 * this code: a change of any byte the app writes or reads fails here.
 *
 * Where the app draws randomness the test supplies it: the IV and epoch key through
 * crypto.getRandomValues, the HPKE ephemeral key through the suite's KEM. ECDSA signatures are
 * randomized in WebCrypto, so ours are checked (over the script's bytes), and the script's
 * (deterministic, RFC 6979) are pinned.
 */

const hex = (s: string): Bytes => new Uint8Array(s.match(/../g)!.map((b) => parseInt(b, 16)));
const toHex = (b: Uint8Array | ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
const ECDSA = { name: 'ECDSA', hash: 'SHA-256' } as const;

/** The bytes with one bit of byte `i` flipped. */
function flip(bytes: Bytes, i: number): Bytes {
  const copy = bytes.slice();
  copy[i] ^= 1;
  return copy;
}

/** HPKE's ephemeral key pair is the script's. */
async function supplyEphemeral(): Promise<void> {
  const ecdh = { name: 'ECDH', namedCurve: 'P-256' } as const;
  const ephemeral: CryptoKeyPair = {
    privateKey: await crypto.subtle.importKey('pkcs8', fromBase64(KAT.ephemeral.pkcs8), ecdh, true, ['deriveBits']),
    publicKey: await crypto.subtle.importKey('raw', fromBase64(KAT.ephemeral.point), ecdh, true, []),
  };
  vi.spyOn(suite.kem, 'generateKeyPair').mockResolvedValue(ephemeral);
}

const alice = () => importPrivateKeys(KAT.alice.exported, KAT.alice.publicKeys);
const bob = () => importPrivateKeys(KAT.bob.exported, KAT.bob.publicKeys);

const forBob: EpochRecipient = { conversationId: KAT.conversationId, epoch: KAT.epoch7.epoch, userId: KAT.bob.id, keyVersion: KAT.bob.version };
const forAlice: EpochRecipient = { ...forBob, userId: KAT.alice.id, keyVersion: KAT.alice.version };

const contextOf = (m: typeof KAT.hello): MessageContext => ({
  conversationId: m.conversationId,
  epoch: m.epoch,
  messageId: m.messageId,
  senderId: m.senderId,
  senderKeyVersion: m.senderKeyVersion,
});

describe('keys (known answers)', () => {
  it('import from PKCS#8 and publish their public keys as base64 of uncompressed P-256 points', async () => {
    expect(await publicKeysOf(await alice())).toEqual(KAT.alice.publicKeys);
    expect(await publicKeysOf(await bob())).toEqual(KAT.bob.publicKeys);
  });
});

describe('epoch keys (known answers)', () => {
  it('are wrapped under the info ["emp-messenger","epoch-key",1,conversationId,epoch,userId,keyVersion], as UTF-8 JSON', () => {
    expect(toHex(epochInfo(forBob))).toBe(KAT.epoch7.infoForBobHex);
    expect(fromUtf8(epochInfo(forBob))).toBe(KAT.epoch7.infoForBob);
  });

  it('given the ephemeral key, wrap into exactly enc || sealed key (HPKE auth mode, AES-256-GCM)', async () => {
    await supplyEphemeral();
    const [a, b] = await Promise.all([alice(), bob()]);
    const key = hex(KAT.epoch7.keyHex);

    expect(await wrapEpochKey(key, forBob, b.agreement.publicKey, a.agreement)).toBe(KAT.epoch7.wrappedForBob);
    expect(await wrapEpochKey(key, forAlice, a.agreement.publicKey, a.agreement)).toBe(KAT.epoch7.wrappedForAlice);
    // The wrapping is by Bob (epoch 8): another creator, another epoch, other bytes.
    const next = { ...forAlice, epoch: KAT.epoch8.epoch };
    expect(await wrapEpochKey(hex(KAT.epoch8.keyHex), next, a.agreement.publicKey, b.agreement)).toBe(KAT.epoch8.wrappedForAlice);
  });

  it('unwrap the copy the script wrapped into its key, and refuse it with any one byte changed', async () => {
    const [a, b] = await Promise.all([alice(), bob()]);
    const key = await unwrapEpochKey(KAT.epoch7.wrappedForBob, forBob, b.agreement, a.agreement.publicKey);

    // The unwrapped key is the script's: it opens the script's message with WebCrypto alone.
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: fromBase64(KAT.hello.iv), additionalData: utf8(KAT.hello.aad) },
      key,
      fromBase64(KAT.hello.ciphertext),
    );
    expect(fromUtf8(plain)).toBe(JSON.stringify({ text: KAT.hello.text }));

    const wrapped = fromBase64(KAT.epoch7.wrappedForBob);
    expect(wrapped).toHaveLength(65 + 32 + 16);
    for (let i = 0; i < wrapped.length; i++) {
      await expect(unwrapEpochKey(toBase64(flip(wrapped, i)), forBob, b.agreement, a.agreement.publicKey), `byte ${i}`).rejects.toThrow();
    }
  });
});

describe('messages (known answers)', () => {
  it('given the IV, seal into exactly the script\'s ciphertext (AES-256-GCM, additional data ["emp-messenger","message",1,…])', async () => {
    const a = await alice();
    supplyRandom({ 12: fromBase64(KAT.hello.iv) });
    const key = await importEpochKey(hex(KAT.epoch7.keyHex));

    const sealed = await sealMessage({ text: KAT.hello.text }, contextOf(KAT.hello), key, a.signing.privateKey);

    expect({ iv: sealed.iv, ciphertext: sealed.ciphertext }).toEqual({ iv: KAT.hello.iv, ciphertext: KAT.hello.ciphertext });
    // Randomized ECDSA: checked, over the bytes the script signs, with WebCrypto alone.
    const signature = fromBase64(sealed.signature);
    expect(signature).toHaveLength(64);
    expect(await crypto.subtle.verify(ECDSA, a.signing.publicKey, signature, utf8(KAT.hello.signed))).toBe(true);
    expect(await crypto.subtle.verify(ECDSA, a.signing.publicKey, signature, flip(utf8(KAT.hello.signed), 40))).toBe(false);
  });

  it("open the script's message and signature; any one byte of the signature changed, it does not verify", async () => {
    const [a, b] = await Promise.all([alice(), bob()]);
    const key = await importEpochKey(hex(KAT.epoch7.keyHex));
    const sealed = { iv: KAT.hello.iv, ciphertext: KAT.hello.ciphertext, signature: KAT.hello.signature };

    expect(await openMessage(sealed, contextOf(KAT.hello), key, a.signing.publicKey)).toEqual({ text: KAT.hello.text });
    await expect(openMessage(sealed, contextOf(KAT.hello), key, b.signing.publicKey)).rejects.toEqual(new MessageError('signature'));
    const signature = fromBase64(KAT.hello.signature);
    for (let i = 0; i < signature.length; i++) {
      const changed = { ...sealed, signature: toBase64(flip(signature, i)) };
      await expect(openMessage(changed, contextOf(KAT.hello), key, a.signing.publicKey), `byte ${i}`).rejects.toEqual(new MessageError('signature'));
    }
  });

  it('verify the signature over every field of the context', async () => {
    const a = await alice();
    const key = await importEpochKey(hex(KAT.epoch7.keyHex));
    const sealed = { iv: KAT.hello.iv, ciphertext: KAT.hello.ciphertext, signature: KAT.hello.signature };
    const moves: Partial<MessageContext>[] = [
      { conversationId: KAT.conversationId.replace('c0c1', 'c0c2') },
      { epoch: KAT.hello.epoch + 1 },
      { messageId: KAT.reply.messageId },
      { senderId: KAT.bob.id },
      { senderKeyVersion: KAT.hello.senderKeyVersion + 1 },
    ];
    for (const move of moves) {
      await expect(openMessage(sealed, { ...contextOf(KAT.hello), ...move }, key, a.signing.publicKey), JSON.stringify(move)).rejects.toEqual(
        new MessageError('signature'),
      );
    }
  });
});

describe('key backup (known answers)', () => {
  const salt = hex(KAT.backup.saltHex);

  it("given salt and IV, seals into exactly the script's backup (PBKDF2-SHA-256 × 600,000 of the NFKC passphrase, AES-256-GCM)", async () => {
    const key = await deriveBackupKey(KAT.backup.passphrase, salt);
    supplyRandom({ 12: hex(KAT.backup.ivHex) });

    expect(await sealBackup(KAT.backup.contents, key, salt)).toEqual(KAT.backup.sealed);
    expect(KAT.backup.sealed.iterations).toBe(600_000);
  });

  it("opens the script's backup with the passphrase as typed or in NFKC form, and refuses a changed byte", async () => {
    const typed = await deriveBackupKey(KAT.backup.passphrase, salt);
    expect(await openBackup(KAT.backup.sealed, typed, KAT.bob.id)).toEqual(KAT.backup.contents);
    const normalized = await deriveBackupKey(KAT.backup.normalizedPassphrase, salt);
    expect(KAT.backup.normalizedPassphrase).not.toBe(KAT.backup.passphrase);
    expect(await openBackup(KAT.backup.sealed, normalized, KAT.bob.id)).toEqual(KAT.backup.contents);

    const ciphertext = fromBase64(KAT.backup.sealed.ciphertext);
    for (const i of [0, ciphertext.length - 17, ciphertext.length - 1]) {
      const changed = { ...KAT.backup.sealed, ciphertext: toBase64(flip(ciphertext, i)) };
      await expect(openBackup(changed, typed, KAT.bob.id), `byte ${i}`).rejects.toBeInstanceOf(WrongPassphraseError);
    }
    await expect(openBackup({ ...KAT.backup.sealed, iv: toBase64(flip(hex(KAT.backup.ivHex), 0)) }, typed, KAT.bob.id)).rejects.toBeInstanceOf(
      WrongPassphraseError,
    );
    // The additional data binds the user: the same bytes are not Alice's backup.
    await expect(openBackup(KAT.backup.sealed, typed, KAT.alice.id)).rejects.toBeInstanceOf(WrongPassphraseError);
  });

  it('does not open with a passphrase that differs only by an accent', async () => {
    const key = await deriveBackupKey(KAT.backup.normalizedPassphrase.replace('é', 'e'), salt);
    await expect(openBackup(KAT.backup.sealed, key, KAT.bob.id)).rejects.toBeInstanceOf(WrongPassphraseError);
  });
});

describe('safety numbers (known answers)', () => {
  it("are the script's 60 digits from either side, and the key fingerprints its 16 bytes", async () => {
    const a = { userId: KAT.alice.id, keys: KAT.alice.publicKeys };
    const b = { userId: KAT.bob.id, keys: KAT.bob.publicKeys };
    expect(await safetyNumber(a, b)).toBe(KAT.safetyNumber);
    expect(await safetyNumber(b, a)).toBe(KAT.safetyNumber);
    expect(await keyFingerprint(KAT.alice.publicKeys)).toBe(KAT.alice.fingerprint);
    expect(await keyFingerprint(KAT.bob.publicKeys)).toBe(KAT.bob.fingerprint);
  });
});
