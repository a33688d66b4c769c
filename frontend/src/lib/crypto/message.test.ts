import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64 } from './encoding';
import { importEpochKey, newEpochKey } from './epoch';
import { generateKeys } from './keys';
import { MessageError, openMessage, sealMessage, type MessageContext } from './message';

const context: MessageContext = { conversationId: 'c1', epoch: 3, messageId: 'm1', senderId: 'alice', senderKeyVersion: 1 };

async function setup() {
  const [alice, mallory] = await Promise.all([generateKeys(), generateKeys()]);
  const key = await importEpochKey(newEpochKey());
  const sealed = await sealMessage({ text: 'Bonjour à tous 👋' }, context, key, alice.keys.signing.privateKey);
  return { alice, mallory, key, sealed };
}

describe('messages', () => {
  it('open with the epoch key and the sender key, with a fresh IV each time', async () => {
    const { alice, key, sealed } = await setup();
    expect(await openMessage(sealed, context, key, alice.keys.signing.publicKey)).toEqual({ text: 'Bonjour à tous 👋' });
    const again = await sealMessage({ text: 'Bonjour à tous 👋' }, context, key, alice.keys.signing.privateKey);
    expect(again.iv).not.toBe(sealed.iv);
    expect(fromBase64(sealed.iv)).toHaveLength(12);
    expect(fromBase64(sealed.signature)).toHaveLength(64);
  });

  it('refuse a tampered ciphertext', async () => {
    const { alice, key, sealed } = await setup();
    const ct = fromBase64(sealed.ciphertext);
    ct[0] ^= 1;
    await expect(openMessage({ ...sealed, ciphertext: toBase64(ct) }, context, key, alice.keys.signing.publicKey)).rejects.toEqual(
      new MessageError('signature'),
    );
  });

  it('refuse a forged signature: a member cannot write as another', async () => {
    const { alice, mallory, key } = await setup();
    const forged = await sealMessage({ text: 'Transfer the money' }, context, key, mallory.keys.signing.privateKey);
    await expect(openMessage(forged, context, key, alice.keys.signing.publicKey)).rejects.toMatchObject({ reason: 'signature' });
  });

  it('refuse a message moved to another id, conversation or epoch (the additional data binds them)', async () => {
    const { alice, key, sealed } = await setup();
    for (const moved of [{ messageId: 'm2' }, { conversationId: 'c2' }, { epoch: 4 }]) {
      const elsewhere = { ...context, ...moved };
      // Even re-signed by the true sender for the new place, the ciphertext does not open there.
      const resigned = await sealMessage({ text: 'x' }, elsewhere, key, alice.keys.signing.privateKey);
      await expect(
        openMessage({ ...resigned, iv: sealed.iv, ciphertext: sealed.ciphertext }, elsewhere, key, alice.keys.signing.publicKey),
      ).rejects.toBeInstanceOf(MessageError);
    }
  });

  it('do not open with another epoch key', async () => {
    const { alice, sealed } = await setup();
    const other = await importEpochKey(newEpochKey());
    await expect(openMessage(sealed, context, other, alice.keys.signing.publicKey)).rejects.toMatchObject({ reason: 'decryption' });
  });
});
