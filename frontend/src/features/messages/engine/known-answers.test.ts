import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Message } from '@/api/generated/model';
import { fromBase64, keystore, toBase64 } from '@/lib/crypto';
import { suite } from '@/lib/crypto/epoch';
import { KAT } from '@/lib/crypto/known-answer-vectors';
import { FakeServer } from './fake-server';
import { Messenger } from './messenger';
import { supplyRandom } from '@/lib/crypto/known-answer-random';

/*
 * The engine against the known answers of scripts/messenger-known-answers.py (an independent
 * implementation of docs/messenger-crypto.md): a server holding what another implementation wrote
 * (Bob's key backup, epoch 7 wrapped by Alice, Alice's message) is read by a new browser, and what
 * the engine sends back (a reply, a new epoch and its first message) is exactly what the script
 * computes. So the engine maps the server's fields onto the cryptography's as the document says.
 * The IVs, the epoch key and HPKE's ephemeral key are the script's; ECDSA signatures, randomized
 * in WebCrypto, are checked over the script's bytes.
 */

const hex = (s: string) => new Uint8Array(s.match(/../g)!.map((b) => parseInt(b, 16)));
const CONVERSATION = KAT.conversationId;
const ALICE = KAT.alice.id;
const BOB = KAT.bob.id;
const CREATED = '2026-03-01T09:00:00Z';

const hello: Message = {
  id: KAT.hello.messageId,
  conversationId: CONVERSATION,
  kind: 'message',
  senderId: ALICE,
  subjectId: null,
  epoch: KAT.hello.epoch,
  senderKeyVersion: KAT.hello.senderKeyVersion,
  iv: KAT.hello.iv,
  ciphertext: KAT.hello.ciphertext,
  signature: KAT.hello.signature,
  createdAt: CREATED,
};

/** The server as the script's Alice left it: both users' keys, Bob's backup, epoch 7 and her message. */
function serverOfTheScript(): FakeServer {
  const server = new FakeServer({ [ALICE]: 'Alice', [BOB]: 'Bob' });
  server.keys.set(ALICE, [{ userId: ALICE, keyVersion: KAT.alice.version, ...KAT.alice.publicKeys, createdAt: CREATED }]);
  server.keys.set(BOB, [{ userId: BOB, keyVersion: KAT.bob.version, ...KAT.bob.publicKeys, createdAt: CREATED }]);
  server.backups.set(BOB, { ...KAT.backup.sealed });
  server.createConversation(CONVERSATION, ALICE, [ALICE, BOB]);
  const conversation = server.conversations.get(CONVERSATION)!;
  const made = { epoch: KAT.epoch7.epoch, createdBy: ALICE, creatorKeyVersion: KAT.alice.version, createdAt: CREATED };
  conversation.keys.push(
    { ...made, userId: ALICE, keyVersion: KAT.alice.version, wrappedKey: KAT.epoch7.wrappedForAlice },
    { ...made, userId: BOB, keyVersion: KAT.bob.version, wrappedKey: KAT.epoch7.wrappedForBob },
  );
  conversation.epoch = KAT.epoch7.epoch;
  conversation.rekeyRequired = false;
  conversation.messages.push(hello);
  return server;
}

/** Bob in a new browser, restored from the script's backup with its passphrase. */
async function bobRestored(server: FakeServer): Promise<Messenger> {
  const bob = new Messenger(BOB, server.apiFor(BOB));
  expect(await bob.start()).toEqual({ kind: 'restore', reason: 'new-browser', hasBackup: true });
  expect(await bob.restore(KAT.backup.passphrase)).toEqual({ kind: 'ready' });
  return bob;
}

async function signedByBob(signature: string | null | undefined, signed: string): Promise<boolean> {
  const key = await crypto.subtle.importKey('raw', fromBase64(KAT.bob.publicKeys.signingKey), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  return crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, fromBase64(signature ?? ''), new TextEncoder().encode(signed));
}

beforeEach(async () => {
  await keystore.forget(BOB);
});

describe('the messenger engine (known answers)', () => {
  it('restores the backup the script sealed and reads the message the script sent, and nothing with a byte changed', async () => {
    const server = serverOfTheScript();
    const bob = await bobRestored(server);

    // The backup's keys, not new ones: the server still knows Bob by version 3 only.
    expect(server.keys.get(BOB)).toHaveLength(1);
    expect(server.calls).not.toContain(`${BOB} registerKeys`);
    expect(await bob.open(hello)).toEqual({ state: 'ok', text: KAT.hello.text });
    expect(await bob.safetyNumber(ALICE)).toBe(KAT.safetyNumber);

    const signature = fromBase64(KAT.hello.signature);
    signature[10] ^= 1;
    const changed = { ...hello, id: `${hello.id}-changed`, signature: toBase64(signature) };
    expect(await bob.open(changed)).toEqual({ state: 'unverified' });
  });

  it("sends a reply in the current epoch as exactly the script's IV and ciphertext, signed over the script's bytes", async () => {
    const server = serverOfTheScript();
    const bob = await bobRestored(server);
    supplyRandom({ 12: fromBase64(KAT.reply.iv) });

    const conversation = await server.apiFor(BOB).getConversation(CONVERSATION);
    const sent = await bob.send(conversation, KAT.reply.text, KAT.reply.messageId);

    expect(sent).toMatchObject({
      id: KAT.reply.messageId,
      conversationId: CONVERSATION,
      epoch: KAT.reply.epoch,
      senderId: BOB,
      senderKeyVersion: KAT.reply.senderKeyVersion,
      iv: KAT.reply.iv,
      ciphertext: KAT.reply.ciphertext,
    });
    expect(await signedByBob(sent.signature, KAT.reply.signed)).toBe(true);
    expect(server.calls.filter((call) => call.endsWith('startEpoch'))).toEqual([]);
  });

  it('starts the next epoch wrapped for each member exactly as the script wraps it, and seals its first message under it', async () => {
    const server = serverOfTheScript();
    const bob = await bobRestored(server);
    server.conversations.get(CONVERSATION)!.rekeyRequired = true;
    supplyRandom({ 32: hex(KAT.epoch8.keyHex), 12: fromBase64(KAT.epoch8.message.iv) });
    const ecdh = { name: 'ECDH', namedCurve: 'P-256' } as const;
    vi.spyOn(suite.kem, 'generateKeyPair').mockResolvedValue({
      privateKey: await crypto.subtle.importKey('pkcs8', fromBase64(KAT.ephemeral.pkcs8), ecdh, true, ['deriveBits']),
      publicKey: await crypto.subtle.importKey('raw', fromBase64(KAT.ephemeral.point), ecdh, true, []),
    });

    const conversation = await server.apiFor(BOB).getConversation(CONVERSATION);
    const sent = await bob.send(conversation, KAT.epoch8.message.text, KAT.epoch8.message.messageId);

    const stored = server.conversations.get(CONVERSATION)!;
    expect(stored.epoch).toBe(KAT.epoch8.epoch);
    const copies = stored.keys
      .filter((k) => k.epoch === KAT.epoch8.epoch)
      .map(({ userId, keyVersion, wrappedKey, createdBy, creatorKeyVersion }) => ({ userId, keyVersion, wrappedKey, createdBy, creatorKeyVersion }));
    expect(copies).toEqual([
      { userId: ALICE, keyVersion: KAT.alice.version, wrappedKey: KAT.epoch8.wrappedForAlice, createdBy: BOB, creatorKeyVersion: KAT.bob.version },
      { userId: BOB, keyVersion: KAT.bob.version, wrappedKey: KAT.epoch8.wrappedForBob, createdBy: BOB, creatorKeyVersion: KAT.bob.version },
    ]);
    expect(sent).toMatchObject({
      id: KAT.epoch8.message.messageId,
      epoch: KAT.epoch8.epoch,
      senderKeyVersion: KAT.epoch8.message.senderKeyVersion,
      iv: KAT.epoch8.message.iv,
      ciphertext: KAT.epoch8.message.ciphertext,
    });
    expect(await signedByBob(sent.signature, KAT.epoch8.message.signed)).toBe(true);
  });
});
