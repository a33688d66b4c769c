/**
 * Conversation key epochs. Each epoch has a random AES-256-GCM key, sent to every member wrapped
 * with HPKE (RFC 9180) in auth mode: DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM. The
 * `info` binds the conversation, the epoch, the member and their key version; auth mode binds
 * the epoch's creator (their agreement key), so the server cannot slip in a key of its own.
 */
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { type Bytes, context, fromBase64, randomBytes, toBase64 } from './encoding';

export const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });

/** What an epoch key is wrapped for: the `info` of its HPKE context. */
export type EpochRecipient = { conversationId: string; epoch: number; userId: string; keyVersion: number };

export const epochInfo = (r: EpochRecipient): Bytes => context('epoch-key', 1, r.conversationId, r.epoch, r.userId, r.keyVersion);

/** A new epoch's key, as raw bytes: wrapped for each member, then dropped. */
export const newEpochKey = (): Bytes => randomBytes(32);

/** The key wrapped for one member: base64 of `enc` (65 bytes) then the sealed key (48 bytes). */
export async function wrapEpochKey(key: Bytes, recipient: EpochRecipient, recipientAgreementKey: CryptoKey, creator: CryptoKeyPair): Promise<string> {
  const { enc, ct } = await suite.seal({ recipientPublicKey: recipientAgreementKey, senderKey: creator, info: epochInfo(recipient) }, key);
  const out = new Uint8Array(enc.byteLength + ct.byteLength);
  out.set(new Uint8Array(enc), 0);
  out.set(new Uint8Array(ct), enc.byteLength);
  return toBase64(out);
}

const ENC_BYTES = 65;

/** The epoch key as a non-extractable AES-GCM key. Throws if anything was changed or forged. */
export async function unwrapEpochKey(wrapped: string, recipient: EpochRecipient, own: CryptoKeyPair, creatorAgreementKey: CryptoKey): Promise<CryptoKey> {
  const bytes = fromBase64(wrapped);
  const raw = await suite.open(
    { recipientKey: own, enc: bytes.slice(0, ENC_BYTES), senderPublicKey: creatorAgreementKey, info: epochInfo(recipient) },
    bytes.slice(ENC_BYTES),
  );
  return importEpochKey(new Uint8Array(raw));
}

export function importEpochKey(raw: Bytes): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', raw, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}
