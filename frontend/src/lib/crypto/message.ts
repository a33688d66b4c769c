/**
 * Messages: AES-256-GCM under the epoch key with a fresh 96-bit IV; the additional data binds the
 * conversation, epoch, message id and sender; the sender signs (ECDSA P-256, SHA-256) the same
 * context with the IV and ciphertext, and the signature is checked before anything is shown.
 */
import { type Bytes, context, fromBase64, fromUtf8, randomBytes, toBase64, utf8 } from './encoding';

export type MessageContent = { text: string };

export type MessageContext = { conversationId: string; epoch: number; messageId: string; senderId: string; senderKeyVersion: number };

export type SealedMessage = { iv: string; ciphertext: string; signature: string };

/** Why a message cannot be shown. */
export class MessageError extends Error {
  constructor(readonly reason: 'signature' | 'decryption' | 'format') {
    super(`message ${reason} check failed`);
  }
}

const ECDSA = { name: 'ECDSA', hash: 'SHA-256' } as const;

const additionalData = (m: MessageContext): Bytes => context('message', 1, m.conversationId, m.epoch, m.messageId, m.senderId, m.senderKeyVersion);

function signed(m: MessageContext, iv: string, ciphertext: string): Bytes {
  return context('message-signature', 1, m.conversationId, m.epoch, m.messageId, m.senderId, m.senderKeyVersion, iv, ciphertext);
}

export async function sealMessage(content: MessageContent, m: MessageContext, key: CryptoKey, signingKey: CryptoKey): Promise<SealedMessage> {
  const iv = randomBytes(12);
  const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: additionalData(m) }, key, utf8(JSON.stringify(content)));
  const sealed = { iv: toBase64(iv), ciphertext: toBase64(ct) };
  const signature = await crypto.subtle.sign(ECDSA, signingKey, signed(m, sealed.iv, sealed.ciphertext));
  return { ...sealed, signature: toBase64(signature) };
}

/** The content, once the signature is verified and the ciphertext opened; else a MessageError. */
export async function openMessage(sealed: SealedMessage, m: MessageContext, key: CryptoKey, verifyKey: CryptoKey): Promise<MessageContent> {
  let signature: Bytes;
  try {
    signature = fromBase64(sealed.signature);
  } catch {
    throw new MessageError('format');
  }
  if (!(await crypto.subtle.verify(ECDSA, verifyKey, signature, signed(m, sealed.iv, sealed.ciphertext)))) throw new MessageError('signature');
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(sealed.iv), additionalData: additionalData(m) }, key, fromBase64(sealed.ciphertext));
  } catch {
    throw new MessageError('decryption');
  }
  try {
    const content: unknown = JSON.parse(fromUtf8(plain));
    if (typeof content === 'object' && content !== null && typeof (content as MessageContent).text === 'string')
      return { text: (content as MessageContent).text };
  } catch {
    // fall through
  }
  throw new MessageError('format');
}
