import type { Conversation, ConversationKey, Correspondent, Message, PublicKeys, UserSummary } from '@/api/generated/model';
import { fakeCiphertext, fakePublicKeys } from './fake-crypto';

/** Server answers of the messaging API for the screens' tests (the fake cryptography's ciphertexts). */

export const person = (id: string, fullName: string): UserSummary => ({ id, fullName, email: `${id}@acme.test`, role: 'DepartmentUser' });

export const correspondent = (summary: UserSummary, keyVersion: number | null = 1): Correspondent => ({ ...summary, departmentId: null, keyVersion });

export const serverKeys = (userId: string, keyVersion = 1, label = userId): PublicKeys => ({
  userId,
  keyVersion,
  ...fakePublicKeys(label),
  createdAt: '2026-03-01T09:00:00Z',
});

export function conversation(overrides: Partial<Conversation> & Pick<Conversation, 'id' | 'members'>): Conversation {
  return {
    kind: overrides.members.length > 2 ? 'group' : 'direct',
    name: null,
    archived: false,
    unreadCount: 0,
    lastMessageAt: '2026-03-02T10:00:00Z',
    createdAt: '2026-03-01T09:00:00Z',
    createdBy: overrides.members[0].id,
    epoch: 1,
    rekeyRequired: false,
    readMarks: [],
    ...overrides,
  };
}

let clock = Date.parse('2026-03-02T10:00:00Z');

/** A message of `senderId`, sealed by the fake cryptography under epoch 1. */
export function message(conversationId: string, senderId: string, text: string, overrides: Partial<Message> = {}): Message {
  clock += 60_000;
  return {
    id: `m-${clock}`,
    conversationId,
    kind: 'message',
    senderId,
    subjectId: null,
    epoch: 1,
    senderKeyVersion: 1,
    iv: 'AAAAAAAAAAAAAAAA',
    ciphertext: fakeCiphertext(text),
    signature: 'c2ln',
    createdAt: new Date(clock).toISOString(),
    ...overrides,
  };
}

/** A membership line the server wrote. */
export function systemLine(conversationId: string, kind: string, senderId: string, subjectId: string | null = null): Message {
  clock += 60_000;
  return {
    id: `s-${clock}`,
    conversationId,
    kind,
    senderId,
    subjectId,
    epoch: null,
    senderKeyVersion: null,
    iv: null,
    ciphertext: null,
    signature: null,
    createdAt: new Date(clock).toISOString(),
  };
}

/** The caller's wrapped copy of epoch 1, made by `createdBy`. */
export const epochKey = (createdBy: string, epoch = 1): ConversationKey => ({
  epoch,
  keyVersion: 1,
  wrappedKey: 'd3JhcHBlZA==',
  createdBy,
  creatorKeyVersion: 1,
  createdAt: '2026-03-01T09:00:00Z',
});
