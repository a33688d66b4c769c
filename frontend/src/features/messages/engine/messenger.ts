/**
 * The messenger's engine for one signed-in user in this browser (docs/messenger-crypto.md): key
 * set-up, backup and restore, conversation epochs, sealing and opening messages, safety numbers.
 * It holds unwrapped epoch keys, senders' public keys and opened messages in memory only; the
 * user's private keys live in IndexedDB (lib/crypto/keystore). Nothing here knows React: the
 * screens read it through ./instance.ts, and the tests drive it with the real cryptography and
 * an API of their own (messenger.test.ts, Node's WebCrypto).
 */
import type {
  Conversation,
  ConversationKey,
  KeyBackup,
  Message,
  NewEpoch,
  PublicKeys as ServerKeys,
  RegisterKeys,
  SendMessage,
  UserSummary,
} from '@/api/generated/model';
import {
  MessageError,
  deriveBackupKey,
  fromBase64,
  generateKeys,
  importEpochKey,
  importPrivateKeys,
  importPublicKeys,
  keyFingerprint,
  keystore,
  newBackupSalt,
  newEpochKey,
  openBackup,
  openMessage,
  safetyNumber,
  sealBackup,
  sealMessage,
  unwrapEpochKey,
  wrapEpochKey,
  type BackupContents,
  type PublicKeys,
} from '@/lib/crypto';

/** The calls the engine makes (./api.ts wires the generated client; tests give their own). Failures reject with the API client's errors. */
export type MessengerApi = {
  registerKeys(body: RegisterKeys): Promise<ServerKeys>;
  getKeys(userId: string, version?: number): Promise<ServerKeys>;
  /** 404 when there is none. */
  getBackup(): Promise<KeyBackup>;
  putBackup(backup: KeyBackup): Promise<unknown>;
  getConversation(id: string): Promise<Conversation>;
  listKeys(conversationId: string): Promise<ConversationKey[]>;
  startEpoch(conversationId: string, body: NewEpoch): Promise<Conversation>;
  sendMessage(body: SendMessage): Promise<Message>;
};

/** Where set-up stands in this browser. */
export type MessengerStatus =
  | { kind: 'starting' }
  | { kind: 'ready' }
  /**
   * Keys were just made here: ask for a backup passphrase (or let the user skip). `existingBackup`:
   * one from another browser is on the server; `replacedKeys`: the account had keys before (made
   * elsewhere), so what was sent before cannot be read here.
   */
  | { kind: 'needs-backup'; existingBackup: boolean; replacedKeys: boolean }
  /** This browser lacks keys the account uses: restore them from the backup (`hasBackup`) or start fresh. */
  | { kind: 'restore'; reason: 'new-browser' | 'newer-keys'; hasBackup: boolean };

/** This browser and the server backup: `on` (new key versions join it), `elsewhere` (a backup this browser cannot add to), `off` (none). */
export type BackupState = 'on' | 'elsewhere' | 'off';

/** What a message shows, once checked. */
export type Opened =
  | { state: 'ok'; text: string }
  /** The signature does not match the sender's registered keys (or they are gone). */
  | { state: 'unverified' }
  /** This browser holds the key version but the message or its key does not open. */
  | { state: 'undecryptable' }
  /** Its epoch was wrapped for an older key version of the user that this browser does not have. */
  | { state: 'before-keys' }
  /** Its epoch was wrapped for newer keys the user made in another browser. */
  | { state: 'other-browser' }
  /** No copy of its epoch key was ever made for the user: sent before they joined. */
  | { state: 'before-joined' }
  /** A call failed (network, server): not kept, tried again later. */
  | { state: 'unavailable' };

/** A member has never opened the messenger: nothing can be encrypted for them. */
export class NoKeysError extends Error {
  constructor(readonly member: UserSummary | null) {
    super('a member has no messenger keys');
  }
}

/** The server knows a newer key version of this user than this browser holds (made in another browser). */
export class OutdatedKeysError extends Error {
  constructor() {
    super("this browser does not hold the user's newest keys");
  }
}

/** The backup on the server no longer opens with the key this browser kept (changed from another browser). */
export class BackupChangedError extends Error {
  constructor() {
    super('the backup was changed elsewhere');
  }
}

type EpochKeyResult = CryptoKey | 'before-keys' | 'other-browser' | 'before-joined' | 'undecryptable';
type PublicKeyPair = { keys: ServerKeys; agreement: CryptoKey; signing: CryptoKey };
type BackupVersion = BackupContents['versions'][number];

const statusOf = (error: unknown): number | undefined =>
  typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number' ? (error as { status: number }).status : undefined;

/** The `reason` of a 409 (`rekey_required`, `stale_epoch`, `no_keys`, ...). */
export const conflictReason = (error: unknown): string | undefined =>
  statusOf(error) === 409 ? ((error as { reason?: string }).reason ?? undefined) : undefined;

const isKey = (value: EpochKeyResult): value is CryptoKey => typeof value !== 'string';

const samePublicKeys = (a: PublicKeys, b: PublicKeys) => a.agreementKey === b.agreementKey && a.signingKey === b.signingKey;

const MAX_ATTEMPTS = 3;

export class Messenger {
  private versions: keystore.StoredVersion[] = [];
  /** Key versions made in this session that no backup holds yet, with their private keys as bytes. */
  private pending: BackupVersion[] = [];
  private readonly keyLists = new Map<string, Promise<ConversationKey[]>>();
  private readonly epochKeys = new Map<string, Promise<EpochKeyResult>>();
  private readonly publicKeys = new Map<string, Promise<PublicKeyPair>>();
  private readonly opening = new Map<string, Promise<Opened>>();
  private readonly opened = new Map<string, Opened>();
  /** What was last sealed under each message id: a retry first sends exactly that again. */
  private readonly sealed = new Map<string, SendMessage>();
  private readonly listeners = new Set<() => void>();
  private current: MessengerStatus = { kind: 'starting' };
  private starting: Promise<MessengerStatus> | undefined;

  constructor(
    readonly userId: string,
    private readonly api: MessengerApi,
  ) {}

  // --- status -------------------------------------------------------------------------------

  get status(): MessengerStatus {
    return this.current;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private setStatus(status: MessengerStatus): MessengerStatus {
    this.current = status;
    this.listeners.forEach((listener) => listener());
    return status;
  }

  /** Starts once (later calls share the first); `restart` checks again. */
  start(restart = false): Promise<MessengerStatus> {
    if (!this.starting || restart) {
      this.starting = this.check().then(
        (status) => this.setStatus(status),
        (error: unknown) => {
          this.starting = undefined;
          throw error;
        },
      );
    }
    return this.starting;
  }

  /** The key version messages are signed with and epochs are made for. */
  private newest(): keystore.StoredVersion {
    const [newest] = this.versions;
    if (!newest) throw new OutdatedKeysError();
    return newest;
  }

  private async serverKeys(version?: number): Promise<ServerKeys | null> {
    try {
      return await this.api.getKeys(this.userId, version);
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
  }

  private async serverBackup(): Promise<KeyBackup | null> {
    try {
      return await this.api.getBackup();
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
  }

  private async check(): Promise<MessengerStatus> {
    keystore.persistStorage().catch(() => false);
    this.versions = await keystore.loadVersions(this.userId);
    const server = await this.serverKeys();
    if (this.versions.length > 0 && !(await this.heldKeysAreTheServers(server))) {
      // Keys of another server (a reset database): they name nothing there.
      await keystore.forget(this.userId);
      this.versions = [];
    }
    const backup = await this.serverBackup();
    if (this.versions.length === 0) {
      if (backup) return { kind: 'restore', reason: 'new-browser', hasBackup: true };
      await this.createVersion();
      return { kind: 'needs-backup', existingBackup: false, replacedKeys: server !== null };
    }
    if (server && this.newest().version < server.keyVersion) {
      if (backup) await this.syncFromBackup(backup);
      if (this.newest().version < server.keyVersion) return { kind: 'restore', reason: 'newer-keys', hasBackup: backup !== null };
    }
    return { kind: 'ready' };
  }

  /** The newest key version held here is registered, with these very keys. */
  private async heldKeysAreTheServers(server: ServerKeys | null): Promise<boolean> {
    const newest = this.newest();
    if (!server || newest.version > server.keyVersion) return false;
    const registered = newest.version === server.keyVersion ? server : await this.serverKeys(newest.version);
    return registered !== null && samePublicKeys(registered, newest.publicKeys);
  }

  /** Adds the versions a backup holds and this browser lacks, with the backup key kept here. */
  private async syncFromBackup(sealed: KeyBackup): Promise<void> {
    const stored = await keystore.loadBackupKey(this.userId);
    if (!stored || stored.salt !== sealed.salt) return;
    try {
      await this.importVersions(await openBackup(sealed, stored.key, this.userId));
    } catch {
      // Changed elsewhere: the user restores with the passphrase.
    }
  }

  private async importVersions(contents: BackupContents): Promise<void> {
    const held = new Set(this.versions.map((v) => v.version));
    for (const entry of contents.versions) {
      if (held.has(entry.version)) continue;
      const registered = await this.serverKeys(entry.version);
      // A version the server no longer has (or has with other keys) is of no use.
      if (!registered || !samePublicKeys(registered, entry.publicKeys)) continue;
      const keys = await importPrivateKeys(entry.exported, entry.publicKeys);
      await keystore.saveVersion(this.userId, { version: entry.version, keys, publicKeys: entry.publicKeys });
    }
    this.versions = await keystore.loadVersions(this.userId);
  }

  /** New key pairs, registered as the next version; added to the backup when this browser can, else kept for one. */
  private async createVersion(): Promise<void> {
    const made = await generateKeys();
    const registered = await this.api.registerKeys(made.publicKeys);
    await keystore.saveVersion(this.userId, { version: registered.keyVersion, keys: made.keys, publicKeys: made.publicKeys });
    this.versions = await keystore.loadVersions(this.userId);
    const entry = { version: registered.keyVersion, exported: made.exported, publicKeys: made.publicKeys };
    if (!(await this.addToBackup([entry]))) this.pending.push(entry);
  }

  /** Fetches the backup, opens it with the key kept here, adds the versions, seals and stores it. False when this browser cannot. */
  private async addToBackup(entries: BackupVersion[]): Promise<boolean> {
    const stored = await keystore.loadBackupKey(this.userId);
    if (!stored) return false;
    const sealed = await this.serverBackup();
    if (!sealed || sealed.salt !== stored.salt) return false;
    let contents: BackupContents;
    try {
      contents = await openBackup(sealed, stored.key, this.userId);
    } catch {
      return false;
    }
    const added = new Set(entries.map((e) => e.version));
    const versions = [...contents.versions.filter((v) => !added.has(v.version)), ...entries].sort((a, b) => a.version - b.version);
    await this.api.putBackup(await sealBackup({ userId: this.userId, versions }, stored.key, fromBase64(stored.salt), stored.iterations));
    return true;
  }

  // --- set-up, backup, restore --------------------------------------------------------------

  /** Restores the keys of the backup with its passphrase (WrongPassphraseError otherwise), then checks again. */
  async restore(passphrase: string): Promise<MessengerStatus> {
    const sealed = await this.serverBackup();
    if (!sealed) return this.start(true);
    const key = await deriveBackupKey(passphrase, fromBase64(sealed.salt), sealed.iterations);
    const contents = await openBackup(sealed, key, this.userId);
    await keystore.saveBackupKey(this.userId, { key, salt: sealed.salt, iterations: sealed.iterations });
    await this.importVersions(contents);
    this.clearCaches();
    const server = await this.serverKeys();
    // The backup lacks the newest version (made in a browser that did not back it up), or held
    // none the server still has: a new version, which joins the backup.
    if (this.versions.length === 0 || (server && this.newest().version < server.keyVersion)) await this.createVersion();
    return this.start(true);
  }

  /** New keys for this browser (older messages stay unreadable here unless restored later). */
  async startFresh(): Promise<MessengerStatus> {
    await this.createVersion();
    this.clearCaches();
    if (this.pending.length === 0) return this.start(true);
    return this.setStatus({ kind: 'needs-backup', existingBackup: (await this.serverBackup()) !== null, replacedKeys: true });
  }

  /** No backup for now: the private keys' bytes are dropped. */
  skipBackup(): MessengerStatus {
    this.pending = [];
    return this.setStatus({ kind: 'ready' });
  }

  async backupState(): Promise<BackupState> {
    const [stored, sealed] = await Promise.all([keystore.loadBackupKey(this.userId), this.serverBackup()]);
    if (!sealed) return 'off';
    return stored && stored.salt === sealed.salt ? 'on' : 'elsewhere';
  }

  /**
   * Backs up this browser's keys under a passphrase. Keys already in use here cannot be read out
   * (they are stored non-extractable), so unless they were just made a new key version is made
   * for the backup. `new` starts a backup (replacing any); `join` adds to the existing one, whose
   * passphrase this is (WrongPassphraseError otherwise), and restores what it holds.
   */
  async enableBackup(passphrase: string, mode: 'new' | 'join'): Promise<MessengerStatus> {
    if (mode === 'join') {
      const sealed = await this.serverBackup();
      if (!sealed) return this.enableBackup(passphrase, 'new');
      const key = await deriveBackupKey(passphrase, fromBase64(sealed.salt), sealed.iterations);
      const contents = await openBackup(sealed, key, this.userId);
      await keystore.saveBackupKey(this.userId, { key, salt: sealed.salt, iterations: sealed.iterations });
      await this.importVersions(contents);
      if (this.pending.length === 0) await this.createVersion();
      else if (await this.addToBackup(this.pending)) this.pending = [];
    } else {
      if (this.pending.length === 0) await this.createVersion();
      const salt = newBackupSalt();
      const key = await deriveBackupKey(passphrase, salt);
      const sealed = await sealBackup({ userId: this.userId, versions: this.pending }, key, salt);
      await this.api.putBackup(sealed);
      await keystore.saveBackupKey(this.userId, { key, salt: sealed.salt, iterations: sealed.iterations });
      this.pending = [];
    }
    this.clearCaches();
    return this.setStatus({ kind: 'ready' });
  }

  /** The same backup under a new passphrase (BackupChangedError when this browser's backup key no longer opens it). */
  async changePassphrase(passphrase: string): Promise<void> {
    const [stored, sealed] = await Promise.all([keystore.loadBackupKey(this.userId), this.serverBackup()]);
    if (!stored || !sealed || stored.salt !== sealed.salt) throw new BackupChangedError();
    let contents: BackupContents;
    try {
      contents = await openBackup(sealed, stored.key, this.userId);
    } catch {
      throw new BackupChangedError();
    }
    const salt = newBackupSalt();
    const key = await deriveBackupKey(passphrase, salt);
    const next = await sealBackup(contents, key, salt);
    await this.api.putBackup(next);
    await keystore.saveBackupKey(this.userId, { key, salt: next.salt, iterations: next.iterations });
  }

  // --- keys of others and of epochs ---------------------------------------------------------

  /** Someone's public keys of one version, fetched once. */
  private publicKeysOf(userId: string, version: number): Promise<PublicKeyPair> {
    const id = `${userId}:${version}`;
    let found = this.publicKeys.get(id);
    if (!found) {
      found = this.api.getKeys(userId, version).then(async (keys) => ({ keys, ...(await importPublicKeys(keys)) }));
      found.catch(() => this.publicKeys.delete(id));
      this.publicKeys.set(id, found);
    }
    return found;
  }

  private keyList(conversationId: string, refresh = false): Promise<ConversationKey[]> {
    let list = refresh ? undefined : this.keyLists.get(conversationId);
    if (!list) {
      list = this.api.listKeys(conversationId);
      list.catch(() => this.keyLists.delete(conversationId));
      this.keyLists.set(conversationId, list);
    }
    return list;
  }

  /** The caller's wrapped copy of an epoch key, fetching the list again when the epoch is newer than it. */
  private async ownCopy(conversationId: string, epoch: number): Promise<{ copy?: ConversationKey; newest: number }> {
    let list = await this.keyList(conversationId);
    const newestOf = (keys: ConversationKey[]) => keys.reduce((n, k) => Math.max(n, k.epoch), 0);
    if (epoch > newestOf(list)) list = await this.keyList(conversationId, true);
    return { copy: list.find((k) => k.epoch === epoch), newest: newestOf(list) };
  }

  /** An epoch's key, unwrapped once per conversation and epoch; or why it cannot be had. */
  private epochKey(conversationId: string, epoch: number): Promise<EpochKeyResult> {
    const id = `${conversationId}:${epoch}`;
    let found = this.epochKeys.get(id);
    if (!found) {
      found = this.unwrap(conversationId, epoch);
      found.catch(() => this.epochKeys.delete(id));
      this.epochKeys.set(id, found);
    }
    return found;
  }

  private async unwrap(conversationId: string, epoch: number): Promise<EpochKeyResult> {
    const { copy, newest } = await this.ownCopy(conversationId, epoch);
    if (!copy) return epoch > newest ? 'undecryptable' : 'before-joined';
    const own = this.versions.find((v) => v.version === copy.keyVersion);
    if (!own) return copy.keyVersion > this.newest().version ? 'other-browser' : 'before-keys';
    if (!copy.createdBy) return 'undecryptable';
    let creator: PublicKeyPair;
    try {
      creator = await this.publicKeysOf(copy.createdBy, copy.creatorKeyVersion);
    } catch (error) {
      if (statusOf(error) === 404) return 'undecryptable';
      throw error;
    }
    try {
      return await unwrapEpochKey(
        copy.wrappedKey,
        { conversationId, epoch, userId: this.userId, keyVersion: copy.keyVersion },
        own.keys.agreement,
        creator.agreement,
      );
    } catch {
      return 'undecryptable';
    }
  }

  /** Forgets what is known of a conversation's keys (its members or epochs changed). */
  forgetConversation(conversationId: string): void {
    this.keyLists.delete(conversationId);
  }

  clearCaches(): void {
    this.keyLists.clear();
    this.epochKeys.clear();
    this.publicKeys.clear();
    this.opening.clear();
    this.opened.clear();
  }

  // --- messages -----------------------------------------------------------------------------

  /** What the message shows, if already checked. */
  peek(messageId: string): Opened | undefined {
    return this.opened.get(messageId);
  }

  /** Verifies the signature, then decrypts; the result is kept (a failed call is not). */
  open(message: Message): Promise<Opened> {
    const known = this.opened.get(message.id);
    if (known) return Promise.resolve(known);
    let running = this.opening.get(message.id);
    if (!running) {
      running = this.verifyAndOpen(message).then(
        (result) => {
          this.opening.delete(message.id);
          if (result.state !== 'unavailable') this.opened.set(message.id, result);
          return result;
        },
        () => {
          this.opening.delete(message.id);
          return { state: 'unavailable' } as const;
        },
      );
      this.opening.set(message.id, running);
    }
    return running;
  }

  private async verifyAndOpen(message: Message): Promise<Opened> {
    const { epoch, senderId, senderKeyVersion, iv, ciphertext, signature } = message;
    if (epoch == null || !senderId || senderKeyVersion == null || !iv || !ciphertext || !signature) return { state: 'unverified' };
    let sender: PublicKeyPair;
    try {
      sender = await this.publicKeysOf(senderId, senderKeyVersion);
    } catch (error) {
      if (statusOf(error) === 404) return { state: 'unverified' };
      throw error;
    }
    const key = await this.epochKey(message.conversationId, epoch);
    if (!isKey(key)) return { state: key };
    try {
      const content = await openMessage(
        { iv, ciphertext, signature },
        { conversationId: message.conversationId, epoch, messageId: message.id, senderId, senderKeyVersion },
        key,
        sender.signing,
      );
      return { state: 'ok', text: content.text };
    } catch (error) {
      if (error instanceof MessageError && error.reason === 'decryption') return { state: 'undecryptable' };
      return { state: 'unverified' };
    }
  }

  /**
   * Seals and sends a message under the conversation's current epoch, starting the next epoch
   * first when the server asks for one (or this browser holds no copy of the current one for its
   * newest keys). The id is the caller's (a retry passes the same one).
   */
  async send(conversation: Conversation, text: string, messageId: string): Promise<Message> {
    const me = this.newest();
    const previous = this.sealed.get(messageId);
    if (previous && previous.epoch === conversation.epoch && !conversation.rekeyRequired) {
      try {
        return this.sent(messageId, await this.api.sendMessage(previous));
      } catch (error) {
        if (conflictReason(error) !== 'rekey_required') throw error;
      }
    }
    let target = conversation;
    let rotate = false;
    for (let attempt = 1; ; attempt++) {
      const { conversation: current, key } = await this.currentEpoch(target, rotate);
      const context = { conversationId: current.id, epoch: current.epoch, messageId, senderId: this.userId, senderKeyVersion: me.version };
      const sealed = await sealMessage({ text }, context, key, me.keys.signing.privateKey);
      const body: SendMessage = { id: messageId, conversationId: current.id, epoch: current.epoch, senderKeyVersion: me.version, ...sealed };
      this.sealed.set(messageId, body);
      try {
        return this.sent(messageId, await this.api.sendMessage(body));
      } catch (error) {
        if (conflictReason(error) !== 'rekey_required' || attempt >= MAX_ATTEMPTS) throw error;
        target = await this.api.getConversation(current.id);
        // Someone else may have started the next epoch meanwhile: then it is used.
        rotate = target.rekeyRequired || target.epoch === current.epoch;
      }
    }
  }

  private sent(messageId: string, message: Message): Message {
    this.sealed.delete(messageId);
    return message;
  }

  /** The current epoch's key for sending, after starting a new epoch when needed. */
  private async currentEpoch(conversation: Conversation, rotate: boolean): Promise<{ conversation: Conversation; key: CryptoKey }> {
    if (!rotate && !conversation.rekeyRequired && conversation.epoch > 0) {
      const usable = await this.usableEpochKey(conversation);
      if (usable) return { conversation, key: usable };
    }
    return this.rotate(conversation);
  }

  /** The epoch key, when this browser holds a copy for its newest keys. */
  private async usableEpochKey(conversation: Conversation): Promise<CryptoKey | null> {
    const { copy } = await this.ownCopy(conversation.id, conversation.epoch);
    if (!copy || copy.keyVersion !== this.newest().version) return null;
    const key = await this.epochKey(conversation.id, conversation.epoch);
    return isKey(key) ? key : null;
  }

  /**
   * Starts the next epoch: a fresh key wrapped for every member at their newest keys, the caller
   * included. When another epoch began meanwhile (409 `stale_epoch`) the conversation is read
   * again and either that epoch is used or the next one tried.
   */
  async rotate(conversation: Conversation): Promise<{ conversation: Conversation; key: CryptoKey }> {
    const me = this.newest();
    let current = conversation;
    for (let attempt = 1; ; attempt++) {
      const epoch = current.epoch + 1;
      const recipients = await Promise.all(
        current.members.map(async (member) => {
          if (member.id === this.userId) return { userId: member.id, keyVersion: me.version, agreement: me.keys.agreement.publicKey };
          let keys: ServerKeys;
          try {
            keys = await this.api.getKeys(member.id);
          } catch (error) {
            if (statusOf(error) === 404) throw new NoKeysError(member);
            throw error;
          }
          const imported = await importPublicKeys(keys);
          return { userId: member.id, keyVersion: keys.keyVersion, agreement: imported.agreement };
        }),
      );
      const raw = newEpochKey();
      const keys = await Promise.all(
        recipients.map(async (r) => ({
          userId: r.userId,
          keyVersion: r.keyVersion,
          wrappedKey: await wrapEpochKey(
            raw,
            { conversationId: current.id, epoch, userId: r.userId, keyVersion: r.keyVersion },
            r.agreement,
            me.keys.agreement,
          ),
        })),
      );
      try {
        const updated = await this.api.startEpoch(current.id, { epoch, creatorKeyVersion: me.version, keys });
        const key = await importEpochKey(raw);
        this.epochKeys.set(`${current.id}:${epoch}`, Promise.resolve(key));
        this.keyLists.delete(current.id);
        return { conversation: updated, key };
      } catch (error) {
        const reason = conflictReason(error);
        if (reason === 'no_keys') throw new NoKeysError(null);
        if (reason !== 'stale_epoch' || attempt >= MAX_ATTEMPTS) throw error;
        const mine = await this.serverKeys();
        if (mine && mine.keyVersion !== me.version) throw new OutdatedKeysError();
        current = await this.api.getConversation(current.id);
        if (!current.rekeyRequired && current.epoch > 0) {
          const usable = await this.usableEpochKey(current);
          if (usable) return { conversation: current, key: usable };
        }
      }
    }
  }

  // --- safety numbers -----------------------------------------------------------------------

  /** The 60 digits both people see, from their newest keys. */
  async safetyNumber(otherId: string): Promise<string> {
    const theirs = await this.api.getKeys(otherId);
    return safetyNumber({ userId: this.userId, keys: this.newest().publicKeys }, { userId: otherId, keys: theirs });
  }

  /**
   * Compares someone's newest keys with the first ones seen of them (pinned then): `new` (pinned
   * now), `same`, or `changed`. Null when they have none.
   */
  async checkKeys(otherId: string): Promise<'new' | 'same' | 'changed' | null> {
    let theirs: ServerKeys;
    try {
      theirs = await this.api.getKeys(otherId);
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
    const fingerprint = await keyFingerprint(theirs);
    const pinned = (await keystore.loadPins(this.userId))[otherId];
    if (!pinned) {
      await keystore.savePin(this.userId, otherId, fingerprint);
      return 'new';
    }
    return pinned === fingerprint ? 'same' : 'changed';
  }

  /** Pins someone's current keys (after comparing the safety number). */
  async acceptKeys(otherId: string): Promise<void> {
    await keystore.savePin(this.userId, otherId, await keyFingerprint(await this.api.getKeys(otherId)));
  }
}
