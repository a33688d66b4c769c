/**
 * An in-memory messenger server for the engine's tests: the rules of backend/src/api/messaging.rs
 * that the engine depends on (key versions, backups, epochs for exactly the current members at
 * their newest keys, `rekey_required` (also when a member's newest keys are not those the
 * current epoch was wrapped for) and `stale_epoch`, membership), nothing more.
 */
import type { Conversation, ConversationKey, KeyBackup, Message, PublicKeys as ServerKeys, UserSummary } from '@/api/generated/model';
import type { MessengerApi } from './messenger';

/** A refusal, shaped as the API client's errors (`status`, `reason`). */
export class FakeApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason?: string,
  ) {
    super(`${status} ${reason ?? ''}`);
  }
}

type StoredConversation = {
  id: string;
  kind: 'direct' | 'group';
  name: string | null;
  createdBy: string;
  members: string[];
  epoch: number;
  rekeyRequired: boolean;
  keys: (ConversationKey & { userId: string })[];
  messages: Message[];
};

export class FakeServer {
  readonly keys = new Map<string, ServerKeys[]>();
  readonly backups = new Map<string, KeyBackup>();
  readonly conversations = new Map<string, StoredConversation>();
  /** Every call, as `caller method`. */
  readonly calls: string[] = [];
  /** Runs before a call is answered (a test's way to let "someone else" act meanwhile). */
  before?: (call: string) => Promise<void> | void;
  private clock = Date.parse('2026-03-01T09:00:00Z');

  constructor(private readonly names: Record<string, string>) {}

  private now(): string {
    this.clock += 1000;
    return new Date(this.clock).toISOString();
  }

  summary(id: string): UserSummary {
    return { id, fullName: this.names[id] ?? id, email: `${id}@example.test`, role: 'DepartmentUser' };
  }

  newest(userId: string): ServerKeys | undefined {
    return this.keys.get(userId)?.at(-1);
  }

  view(c: StoredConversation): Conversation {
    return {
      id: c.id,
      kind: c.kind,
      name: c.name,
      members: c.members.map((m) => this.summary(m)),
      archived: false,
      unreadCount: 0,
      lastMessageAt: c.messages.at(-1)?.createdAt ?? null,
      createdAt: '2026-03-01T09:00:00Z',
      createdBy: c.createdBy,
      epoch: c.epoch,
      rekeyRequired: this.needsRekey(c),
      readMarks: [],
    };
  }

  /** As the server: no epoch yet, a membership change, or a member's keys changed since. */
  private needsRekey(c: StoredConversation): boolean {
    const keysChanged = c.members.some((m) => c.keys.find((k) => k.epoch === c.epoch && k.userId === m)?.keyVersion !== this.newest(m)?.keyVersion);
    return c.rekeyRequired || c.epoch === 0 || keysChanged;
  }

  createConversation(id: string, createdBy: string, members: string[], kind: 'direct' | 'group' = members.length > 2 ? 'group' : 'direct') {
    this.conversations.set(id, {
      id,
      kind,
      name: kind === 'group' ? 'Group' : null,
      createdBy,
      members,
      epoch: 0,
      rekeyRequired: true,
      keys: [],
      messages: [],
    });
  }

  addMember(id: string, userId: string) {
    const c = this.conversations.get(id)!;
    c.members.push(userId);
    c.rekeyRequired = true;
  }

  removeMember(id: string, userId: string) {
    const c = this.conversations.get(id)!;
    c.members = c.members.filter((m) => m !== userId);
    c.rekeyRequired = true;
  }

  private member(id: string, me: string): StoredConversation {
    const c = this.conversations.get(id);
    if (!c || !c.members.includes(me)) throw new FakeApiError(404);
    return c;
  }

  /** The API as `me` calls it. */
  apiFor(me: string): MessengerApi {
    const call = async <T>(name: string, answer: () => T): Promise<T> => {
      this.calls.push(`${me} ${name}`);
      await this.before?.(`${me} ${name}`);
      return structuredClone(answer());
    };
    return {
      registerKeys: (body) =>
        call('registerKeys', () => {
          const versions = this.keys.get(me) ?? [];
          const keys: ServerKeys = {
            userId: me,
            keyVersion: versions.length + 1,
            agreementKey: body.agreementKey,
            signingKey: body.signingKey,
            createdAt: this.now(),
          };
          this.keys.set(me, [...versions, keys]);
          return keys;
        }),
      getKeys: (userId, version) =>
        call(`getKeys ${userId}${version ? `@${version}` : ''}`, () => {
          const versions = this.keys.get(userId) ?? [];
          const found = version === undefined ? versions.at(-1) : versions.find((v) => v.keyVersion === version);
          if (!found) throw new FakeApiError(404);
          return found;
        }),
      getBackup: () =>
        call('getBackup', () => {
          const backup = this.backups.get(me);
          if (!backup) throw new FakeApiError(404);
          return backup;
        }),
      putBackup: (backup) =>
        call('putBackup', () => {
          this.backups.set(me, backup);
          return backup;
        }),
      getConversation: (id) => call('getConversation', () => this.view(this.member(id, me))),
      listKeys: (id) =>
        call('listKeys', () =>
          this.member(id, me)
            .keys.filter((k) => k.userId === me)
            .map(({ userId: _, ...key }) => key),
        ),
      startEpoch: (id, body) =>
        call('startEpoch', () => {
          const c = this.member(id, me);
          if (body.epoch !== c.epoch + 1) throw new FakeApiError(409, 'stale_epoch');
          if (c.members.some((m) => !this.newest(m))) throw new FakeApiError(409, 'no_keys');
          const wanted = c.members.map((m) => `${m}:${this.newest(m)!.keyVersion}`).sort();
          const given = body.keys.map((k) => `${k.userId}:${k.keyVersion}`).sort();
          if (JSON.stringify(wanted) !== JSON.stringify(given) || body.creatorKeyVersion !== this.newest(me)!.keyVersion) {
            throw new FakeApiError(409, 'stale_epoch');
          }
          const createdAt = this.now();
          c.keys.push(...body.keys.map((k) => ({ ...k, epoch: body.epoch, createdBy: me, creatorKeyVersion: body.creatorKeyVersion, createdAt })));
          c.epoch = body.epoch;
          c.rekeyRequired = false;
          return this.view(c);
        }),
      sendMessage: (body) =>
        call('sendMessage', () => {
          const c = this.member(body.conversationId, me);
          const existing = c.messages.find((m) => m.id === body.id);
          if (existing) {
            if (existing.ciphertext === body.ciphertext) return existing;
            throw new FakeApiError(409, 'id_taken');
          }
          if (this.needsRekey(c) || body.epoch !== c.epoch) throw new FakeApiError(409, 'rekey_required');
          const message: Message = { ...body, kind: 'message', senderId: me, subjectId: null, createdAt: this.now() };
          c.messages.push(message);
          return message;
        }),
    };
  }
}
