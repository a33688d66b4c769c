import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { WrongPassphraseError, fromBase64, keystore, toBase64 } from '@/lib/crypto';
import { FakeServer } from './fake-server';
import { Messenger, NoKeysError } from './messenger';

/*
 * The engine on the real cryptography (Node's WebCrypto, @hpke/core) against an in-memory server.
 * IndexedDB is fake-indexeddb, one database for the whole file: each test has its own user ids,
 * and "another browser" is the same user's stored keys swapped out and back in.
 */

let run = 0;
function people(...names: string[]) {
  run += 1;
  const ids = Object.fromEntries(names.map((name) => [name, `${name}-${run}`])) as Record<string, string>;
  const server = new FakeServer(Object.fromEntries(names.map((name) => [ids[name], name])));
  return { ids, server };
}

const PASSPHRASE = 'correct horse battery staple';

/** A user's first visit in a browser: keys made and registered; backed up unless `skip`. */
async function setUp(server: FakeServer, userId: string, backup: 'backup' | 'skip' = 'skip'): Promise<Messenger> {
  const messenger = new Messenger(userId, server.apiFor(userId));
  expect(await messenger.start()).toEqual({ kind: 'needs-backup', existingBackup: false, replacedKeys: false });
  if (backup === 'backup') await messenger.enableBackup(PASSPHRASE, 'new');
  else messenger.skipBackup();
  return messenger;
}

type Browser = { versions: keystore.StoredVersion[]; backupKey: keystore.StoredBackupKey | undefined };

/** Takes the user's keys out of this "browser" (and leaves it empty): a new browser starts. */
async function leaveBrowser(userId: string): Promise<Browser> {
  const saved = { versions: await keystore.loadVersions(userId), backupKey: await keystore.loadBackupKey(userId) };
  await keystore.forget(userId);
  return saved;
}

async function backToBrowser(userId: string, saved: Browser): Promise<void> {
  await keystore.forget(userId);
  for (const version of saved.versions) await keystore.saveVersion(userId, version);
  if (saved.backupKey) await keystore.saveBackupKey(userId, saved.backupKey);
}

async function send(server: FakeServer, messenger: Messenger, conversationId: string, text: string) {
  const conversation = await server.apiFor(messenger.userId).getConversation(conversationId);
  return messenger.send(conversation, text, crypto.randomUUID());
}

const messagesOf = (server: FakeServer, conversationId: string) => server.conversations.get(conversationId)!.messages;

async function readAll(messenger: Messenger, server: FakeServer, conversationId: string) {
  return Promise.all(messagesOf(server, conversationId).map((m) => messenger.open(m)));
}

describe('the messenger engine', () => {
  it('sets up keys on first use, starts the first epoch with the first message, and both sides read it', async () => {
    const { ids, server } = people('alice', 'bob');
    const alice = await setUp(server, ids.alice);
    const bob = await setUp(server, ids.bob);
    expect(server.keys.get(ids.alice)).toHaveLength(1);
    server.createConversation('c1', ids.alice, [ids.alice, ids.bob]);

    const sent = await send(server, alice, 'c1', 'Hello Bob');
    expect(sent.epoch).toBe(1);
    expect(sent.ciphertext).not.toContain('Hello');
    expect(await bob.open(sent)).toEqual({ state: 'ok', text: 'Hello Bob' });
    expect(await alice.open(sent)).toEqual({ state: 'ok', text: 'Hello Bob' });

    await send(server, bob, 'c1', 'Hi Alice');
    expect(server.conversations.get('c1')!.epoch).toBe(1);
    expect(await readAll(alice, server, 'c1')).toEqual([
      { state: 'ok', text: 'Hello Bob' },
      { state: 'ok', text: 'Hi Alice' },
    ]);
  });

  it('on 409 rekey_required starts the next epoch and sends again, under the same id', async () => {
    const { ids, server } = people('alice', 'bob', 'carol');
    const [alice, bob, carol] = [await setUp(server, ids.alice), await setUp(server, ids.bob), await setUp(server, ids.carol)];
    server.createConversation('g', ids.alice, [ids.alice, ids.bob, ids.carol], 'group');
    await send(server, alice, 'g', 'Before');
    const stale = await server.apiFor(ids.alice).getConversation('g');

    // Carol is removed after Alice's screen read the conversation: it still shows epoch 1, no rekey.
    server.removeMember('g', ids.carol);
    const id = crypto.randomUUID();
    server.calls.length = 0;
    const sent = await alice.send(stale, 'After Carol left', id);

    expect(sent.id).toBe(id);
    expect(sent.epoch).toBe(2);
    expect(server.calls.filter((c) => c.endsWith('sendMessage'))).toHaveLength(2);
    expect(server.calls.filter((c) => c.endsWith('startEpoch'))).toHaveLength(1);
    // Epoch 2 is wrapped for Alice and Bob only.
    const copies = server.conversations.get('g')!.keys.filter((k) => k.epoch === 2);
    expect(copies.map((k) => k.userId).sort()).toEqual([ids.alice, ids.bob].sort());
    expect(await bob.open(sent)).toEqual({ state: 'ok', text: 'After Carol left' });
    // Carol holds no copy: even with the conversation's key list in hand she gets nothing for epoch 2.
    expect(copies.some((k) => k.userId === ids.carol)).toBe(false);
    await expect(carol.open(sent)).resolves.toEqual({ state: 'unavailable' }); // 404: no longer a member
  });

  it('uses the epoch another member started meanwhile (409 stale_epoch), once its key opens', async () => {
    const { ids, server } = people('alice', 'bob');
    const [alice, bob] = [await setUp(server, ids.alice), await setUp(server, ids.bob)];
    server.createConversation('c', ids.alice, [ids.alice, ids.bob]);
    const before = await server.apiFor(ids.alice).getConversation('c'); // epoch 0, rekey required

    // Bob starts epoch 1 while Alice's epoch is on its way.
    let raced = false;
    server.before = async (call) => {
      if (!raced && call === `${ids.alice} startEpoch`) {
        raced = true;
        await send(server, bob, 'c', 'Bob first');
      }
    };
    const sent = await alice.send(before, 'Alice second', crypto.randomUUID());
    server.before = undefined;

    expect(sent.epoch).toBe(1);
    expect(server.conversations.get('c')!.keys.filter((k) => k.epoch === 1 && k.createdBy === ids.bob)).toHaveLength(2);
    expect(await readAll(bob, server, 'c')).toEqual([
      { state: 'ok', text: 'Bob first' },
      { state: 'ok', text: 'Alice second' },
    ]);
  });

  it('names a member who has never opened the messenger', async () => {
    const { ids, server } = people('alice', 'dave');
    const alice = await setUp(server, ids.alice);
    server.createConversation('c', ids.alice, [ids.alice, ids.dave]);
    const error = await send(server, alice, 'c', 'Anyone there?').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoKeysError);
    expect((error as NoKeysError).member?.fullName).toBe('dave');
    expect(messagesOf(server, 'c')).toHaveLength(0);
  });

  it('adds a later key version to the backup, and a new browser restores every version and reads the history', async () => {
    const { ids, server } = people('alice', 'bob');
    const alice = await setUp(server, ids.alice, 'backup');
    const bob = await setUp(server, ids.bob);
    server.createConversation('c', ids.alice, [ids.alice, ids.bob]);
    await send(server, alice, 'c', 'One');
    expect(await alice.backupState()).toBe('on');

    // Keys made anew in this browser (version 2) join the backup without the passphrase.
    expect(await alice.startFresh()).toEqual({ kind: 'ready' });
    expect(server.keys.get(ids.alice)).toHaveLength(2);
    await send(server, alice, 'c', 'Two'); // a new epoch for version 2
    await send(server, bob, 'c', 'Three');
    expect(server.conversations.get('c')!.epoch).toBe(2);

    // A new browser: nothing stored; the backup is offered, a wrong passphrase refused.
    await leaveBrowser(ids.alice);
    const fresh = new Messenger(ids.alice, server.apiFor(ids.alice));
    expect(await fresh.start()).toEqual({ kind: 'restore', reason: 'new-browser', hasBackup: true });
    await expect(fresh.restore('not the passphrase at all')).rejects.toBeInstanceOf(WrongPassphraseError);
    expect(await fresh.restore(PASSPHRASE)).toEqual({ kind: 'ready' });
    expect((await keystore.loadVersions(ids.alice)).map((v) => v.version)).toEqual([2, 1]);
    expect(await readAll(fresh, server, 'c')).toEqual([
      { state: 'ok', text: 'One' },
      { state: 'ok', text: 'Two' },
      { state: 'ok', text: 'Three' },
    ]);
    expect(server.keys.get(ids.alice)).toHaveLength(2);
  });

  it('without a backup, a new browser starts fresh: older messages say so, newer ones read', async () => {
    const { ids, server } = people('alice', 'bob');
    const alice = await setUp(server, ids.alice);
    const bob = await setUp(server, ids.bob);
    server.createConversation('c', ids.alice, [ids.alice, ids.bob]);
    await send(server, alice, 'c', 'Old news');

    await leaveBrowser(ids.alice);
    const fresh = new Messenger(ids.alice, server.apiFor(ids.alice));
    expect(await fresh.start()).toEqual({ kind: 'needs-backup', existingBackup: false, replacedKeys: true });
    fresh.skipBackup();
    expect(server.keys.get(ids.alice)).toHaveLength(2);
    // Sending needs a copy of the epoch for version 2: a new epoch first.
    await send(server, fresh, 'c', 'Fresh start');
    expect(await readAll(fresh, server, 'c')).toEqual([{ state: 'before-keys' }, { state: 'ok', text: 'Fresh start' }]);
    expect(await readAll(bob, server, 'c')).toEqual([
      { state: 'ok', text: 'Old news' },
      { state: 'ok', text: 'Fresh start' },
    ]);
  });

  it('what colleagues send after someone opens a new browser reads there, in a direct chat and a group', async () => {
    const { ids, server } = people('alice', 'bob', 'carol');
    const alice = await setUp(server, ids.alice);
    const bob = await setUp(server, ids.bob);
    const carol = await setUp(server, ids.carol);
    server.createConversation('d', ids.alice, [ids.alice, ids.bob]);
    server.createConversation('g', ids.alice, [ids.alice, ids.bob, ids.carol]);
    await send(server, alice, 'd', 'Before');
    await send(server, carol, 'g', 'Group before');

    // Bob, without a backup, in a new browser: new keys.
    const first = await leaveBrowser(ids.bob);
    const fresh = new Messenger(ids.bob, server.apiFor(ids.bob));
    expect(await fresh.start()).toEqual({ kind: 'needs-backup', existingBackup: false, replacedKeys: true });
    fresh.skipBackup();

    // The others' next messages go under a new epoch wrapped for Bob's new keys.
    await send(server, alice, 'd', 'After');
    await send(server, carol, 'g', 'Group after');
    expect(server.conversations.get('d')!.epoch).toBe(2);
    expect(await readAll(fresh, server, 'd')).toEqual([{ state: 'before-keys' }, { state: 'ok', text: 'After' }]);
    expect(await readAll(fresh, server, 'g')).toEqual([{ state: 'before-keys' }, { state: 'ok', text: 'Group after' }]);
    // Bob's first browser reads what came before, and says truthfully why it cannot read the rest.
    await backToBrowser(ids.bob, first);
    expect(await readAll(bob, server, 'd')).toEqual([{ state: 'ok', text: 'Before' }, { state: 'other-browser' }]);
  });

  it('a backup set up later holds a new key version only, and says what a restore can read', async () => {
    const { ids, server } = people('alice', 'bob');
    const alice = await setUp(server, ids.alice);
    const bob = await setUp(server, ids.bob);
    server.createConversation('c', ids.alice, [ids.alice, ids.bob]);
    await send(server, bob, 'c', 'Before the backup');
    expect(await alice.backupState()).toBe('off');

    await alice.enableBackup(PASSPHRASE, 'new');
    expect(await alice.backupState()).toBe('on');
    expect(server.keys.get(ids.alice)).toHaveLength(2);
    await send(server, alice, 'c', 'After the backup');
    const here = await readAll(alice, server, 'c');
    expect(here).toEqual([
      { state: 'ok', text: 'Before the backup' },
      { state: 'ok', text: 'After the backup' },
    ]);

    const first = await leaveBrowser(ids.alice);
    const other = new Messenger(ids.alice, server.apiFor(ids.alice));
    expect(await other.start()).toEqual({ kind: 'restore', reason: 'new-browser', hasBackup: true });
    await other.restore(PASSPHRASE);
    expect(await readAll(other, server, 'c')).toEqual([{ state: 'before-keys' }, { state: 'ok', text: 'After the backup' }]);

    // Back in the first browser: its keys still read everything.
    await backToBrowser(ids.alice, first);
    const again = new Messenger(ids.alice, server.apiFor(ids.alice));
    expect(await again.start()).toEqual({ kind: 'ready' });
    expect(await readAll(again, server, 'c')).toEqual(here);
  });

  it('changes the passphrase: the old one no longer opens the backup', async () => {
    const { ids, server } = people('alice');
    const alice = await setUp(server, ids.alice, 'backup');
    await alice.changePassphrase('a brand new passphrase');
    await leaveBrowser(ids.alice);
    const fresh = new Messenger(ids.alice, server.apiFor(ids.alice));
    await fresh.start();
    await expect(fresh.restore(PASSPHRASE)).rejects.toBeInstanceOf(WrongPassphraseError);
    expect(await fresh.restore('a brand new passphrase')).toEqual({ kind: 'ready' });
    expect(await fresh.backupState()).toBe('on');
  });

  it('shows a tampered or forged message as such, never as text', async () => {
    const { ids, server } = people('alice', 'bob', 'mallory');
    const [alice, bob] = [await setUp(server, ids.alice), await setUp(server, ids.bob)];
    server.createConversation('c', ids.alice, [ids.alice, ids.bob]);
    const sent = await send(server, alice, 'c', 'Pay invoice 42');

    const flipped = fromBase64(sent.ciphertext!);
    flipped[0] ^= 1;
    expect(await bob.open({ ...sent, id: crypto.randomUUID(), ciphertext: toBase64(flipped) })).toEqual({ state: 'unverified' });
    // Bob claims Alice wrote it: the signature is Bob's, so it does not verify as hers.
    const bobs = await send(server, bob, 'c', 'Pay invoice 43 instead');
    expect(await alice.open({ ...bobs, id: crypto.randomUUID(), senderId: ids.alice })).toEqual({ state: 'unverified' });
    // A message moved to another conversation does not open there.
    server.createConversation('d', ids.alice, [ids.alice, ids.bob]);
    await send(server, alice, 'd', 'Other');
    expect(await bob.open({ ...sent, conversationId: 'd' })).toEqual({ state: 'unverified' });
  });

  it('pins the first keys seen of someone, notices a change, and both sides compute the same safety number', async () => {
    const { ids, server } = people('alice', 'bob');
    const [alice, bob] = [await setUp(server, ids.alice), await setUp(server, ids.bob)];
    expect(await alice.safetyNumber(ids.bob)).toBe(await bob.safetyNumber(ids.alice));
    expect(await alice.safetyNumber(ids.bob)).toMatch(/^\d{60}$/);

    expect(await alice.checkKeys(ids.bob)).toBe('new');
    expect(await alice.checkKeys(ids.bob)).toBe('same');
    await bob.startFresh();
    bob.skipBackup();
    expect(await alice.checkKeys(ids.bob)).toBe('changed');
    await alice.acceptKeys(ids.bob);
    expect(await alice.checkKeys(ids.bob)).toBe('same');
  });
});
