import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64 } from './encoding';
import { newEpochKey, suite, unwrapEpochKey, wrapEpochKey, type EpochRecipient } from './epoch';
import { generateKeys } from './keys';

const hex = (s: string) => new Uint8Array(s.match(/../g)!.map((b) => parseInt(b, 16)));
const toHex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');

// RFC 9180 Appendix A.3: DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-128-GCM. The RFC publishes no
// P-256 vectors with AES-256-GCM; these prove the KEM, the KDF and the auth mode we use.
const rfc = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });
const info = hex('4f6465206f6e2061204772656369616e2055726e');
const pt = hex('4265617574792069732074727574682c20747275746820626561757479');
const aad = hex('436f756e742d30');

describe('HPKE against RFC 9180 test vectors', () => {
  it('A.3.1 base mode: derived keys, enc and the first ciphertext match', async () => {
    const recipient = await rfc.kem.deriveKeyPair(hex('668b37171f1072f3cf12ea8a236a45df23fc13b82af3609ad1e354f6ef817550'));
    const ephemeral = await rfc.kem.deriveKeyPair(hex('4270e54ffd08d79d5928020af4686d8f6b7d35dbe470265f1f5aa22816ce860e'));
    expect(toHex(await rfc.kem.serializePublicKey(recipient.publicKey))).toBe(
      '04fe8c19ce0905191ebc298a9245792531f26f0cece2460639e8bc39cb7f706a826a779b4cf969b8a0e539c7f62fb3d30ad6aa8f80e30f1d128aafd68a2ce72ea0',
    );
    const { enc, ct } = await rfc.seal({ recipientPublicKey: recipient.publicKey, info, ekm: ephemeral }, pt, aad);
    expect(toHex(enc)).toBe(
      '04a92719c6195d5085104f469a8b9814d5838ff72b60501e2c4466e5e67b325ac98536d7b61a1af4b78e5b7f951c0900be863c403ce65c9bfcb9382657222d18c4',
    );
    expect(toHex(ct)).toBe('5ad590bb8baa577f8619db35a36311226a896e7342a6d836d8b7bcd2f20b6c7f9076ac232e3ab2523f39513434');
    expect(toHex(await rfc.open({ recipientKey: recipient, enc, info }, ct, aad))).toBe(toHex(pt.buffer));
  });

  it('A.3.3 auth mode: the sender-authenticated ciphertext matches and opens only with the sender key', async () => {
    const recipient = await rfc.kem.deriveKeyPair(hex('7bc93bde8890d1fb55220e7f3b0c107ae7e6eda35ca4040bb6651284bf0747ee'));
    const sender = await rfc.kem.deriveKeyPair(hex('874baa0dcf93595a24a45a7f042e0d22d368747daaa7e19f80a802af19204ba8'));
    const ephemeral = await rfc.kem.deriveKeyPair(hex('798d82a8d9ea19dbc7f2c6dfa54e8a6706f7cdc119db0813dacf8440ab37c857'));
    expect(toHex(await rfc.kem.serializePublicKey(sender.publicKey))).toBe(
      '04a817a0902bf28e036d66add5d544cc3a0457eab150f104285df1e293b5c10eef8651213e43d9cd9086c80b309df22cf37609f58c1127f7607e85f210b2804f73',
    );
    const { enc, ct } = await rfc.seal({ recipientPublicKey: recipient.publicKey, senderKey: sender, info, ekm: ephemeral }, pt, aad);
    expect(toHex(ct)).toBe('82ffc8c44760db691a07c5627e5fc2c08e7a86979ee79b494a17cc3405446ac2bdb8f265db4a099ed3289ffe19');
    expect(toHex(await rfc.open({ recipientKey: recipient, enc, info, senderPublicKey: sender.publicKey }, ct, aad))).toBe(toHex(pt.buffer));
    const impostor = await rfc.kem.generateKeyPair();
    await expect(rfc.open({ recipientKey: recipient, enc, info, senderPublicKey: impostor.publicKey }, ct, aad)).rejects.toThrow();
  });
});

describe('epoch keys', () => {
  const to = (userId: string, epoch = 1): EpochRecipient => ({ conversationId: 'c1', epoch, userId, keyVersion: 1 });

  it('are wrapped with DHKEM(P-256, HKDF-SHA256), HKDF-SHA256 and AES-256-GCM (RFC 9180 ids 0x0010, 0x0001, 0x0002)', () => {
    expect({ kem: suite.kem.id, kdf: suite.kdf.id, aead: suite.aead.id }).toEqual({ kem: 0x0010, kdf: 0x0001, aead: 0x0002 });
    expect({ key: suite.aead.keySize, nonce: suite.aead.nonceSize, tag: suite.aead.tagSize }).toEqual({ key: 32, nonce: 12, tag: 16 });
    expect({ enc: suite.kem.encSize, secret: suite.kem.secretSize }).toEqual({ enc: 65, secret: 32 });
  });

  it('reach the member they were wrapped for and open only with the right context and creator', async () => {
    const [creator, member, other] = await Promise.all([generateKeys(), generateKeys(), generateKeys()]);
    const key = newEpochKey();
    const wrapped = await wrapEpochKey(key, to('bob'), member.keys.agreement.publicKey, creator.keys.agreement);
    expect(fromBase64(wrapped)).toHaveLength(65 + 32 + 16);

    const aes = await unwrapEpochKey(wrapped, to('bob'), member.keys.agreement, creator.keys.agreement.publicKey);
    const iv = new Uint8Array(12);
    const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, aes, new Uint8Array([1, 2, 3]));
    const mine = await crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['decrypt']);
    expect(new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, mine, sealed))).toEqual(new Uint8Array([1, 2, 3]));

    await expect(unwrapEpochKey(wrapped, to('carol'), member.keys.agreement, creator.keys.agreement.publicKey)).rejects.toThrow();
    await expect(unwrapEpochKey(wrapped, to('bob', 2), member.keys.agreement, creator.keys.agreement.publicKey)).rejects.toThrow();
    await expect(unwrapEpochKey(wrapped, to('bob'), other.keys.agreement, creator.keys.agreement.publicKey)).rejects.toThrow();
    await expect(unwrapEpochKey(wrapped, to('bob'), member.keys.agreement, other.keys.agreement.publicKey)).rejects.toThrow();
    const tampered = fromBase64(wrapped);
    tampered[80] ^= 1;
    await expect(unwrapEpochKey(toBase64(tampered), to('bob'), member.keys.agreement, creator.keys.agreement.publicKey)).rejects.toThrow();
  });

  it('of the next epoch stay closed to a removed member', async () => {
    const [alice, bob, removed] = await Promise.all([generateKeys(), generateKeys(), generateKeys()]);
    const next = newEpochKey();
    // Epoch 2 is wrapped for Alice and Bob only; the removed member holds none of its copies.
    const forBob = await wrapEpochKey(next, to('bob', 2), bob.keys.agreement.publicKey, alice.keys.agreement);
    await expect(unwrapEpochKey(forBob, to('bob', 2), removed.keys.agreement, alice.keys.agreement.publicKey)).rejects.toThrow();
    await expect(unwrapEpochKey(forBob, to('removed', 2), removed.keys.agreement, alice.keys.agreement.publicKey)).rejects.toThrow();
  });
});
