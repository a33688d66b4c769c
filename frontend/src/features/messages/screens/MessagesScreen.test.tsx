import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Conversation, Message } from '@/api/generated/model';
import { renderApp } from '@/app/testing';
import { typing } from '@/lib/messaging-live';
import { session } from '@/lib/session';
import { type MockRequest, mockApi } from '@/testing/api-mock';
import { jsonResponse, makeUser, page, serverErrors } from '@/testing/fixtures';
import { messengerFor } from '../engine/instance';
import { fakeBackup, resetFakeCrypto, storeFakeVersion } from '../test-support/fake-crypto';
import { conversation, correspondent, epochKey, message, person, serverKeys, systemLine } from '../test-support/fixtures';

// jsdom cannot run WebCrypto: the screens run on a stand-in whose ciphertext is base64 text.
vi.mock('@/lib/crypto', async (importOriginal) => (await import('../test-support/fake-crypto')).fakeCryptoModule(await importOriginal()));

const me = makeUser('DepartmentUser', { id: 'ada', fullName: 'Ada Lovelace' });
const ada = person('ada', 'Ada Lovelace');
const ben = person('ben', 'Ben Bauer');
const cy = person('cy', 'Cy Clark');
const dora = person('dora', 'Dora Diaz');
const eve = person('eve', 'Eve Evans');

const direct = conversation({ id: 'c-ben', members: [ada, ben], unreadCount: 2 });
const board = conversation({ id: 'c-board', kind: 'group', name: 'Board', members: [ada, ben, cy], createdBy: 'ada' });

const noBody = () => new Response(null, { status: 204 });

/** This browser holds Ada's keys (version 1), registered on the server; no backup. */
function signedInWithKeys() {
  storeFakeVersion('ada', 1, 'ada');
  session.start('token', me);
}

/** The messaging API with Ada, Ben and Cy set up; `answers` add to or replace these. Ada's own
 * newest keys and backup are also answered together, as the server's setup call does. */
function mockMessenger(answers: Parameters<typeof mockApi>[0] = {}, conversations: Conversation[] = [direct, board]) {
  const server: Parameters<typeof mockApi>[0] = {
    'GET /api/v1/messaging/keys/ada': jsonResponse(200, serverKeys('ada')),
    'GET /api/v1/messaging/keys/ben': jsonResponse(200, serverKeys('ben')),
    'GET /api/v1/messaging/keys/cy': jsonResponse(200, serverKeys('cy')),
    'GET /api/v1/messaging/backup': serverErrors.notFound(),
    'GET /api/v1/messaging/conversations': ({ url }) =>
      jsonResponse(200, page(conversations.filter((c) => c.archived === (url.searchParams.get('archived') === 'true')))),
    'GET /api/v1/messaging/users': jsonResponse(200, page([correspondent(ben), correspondent(cy), correspondent(dora, null), correspondent(eve)])),
    ...Object.fromEntries(conversations.map((c) => [`GET /api/v1/messaging/conversations/${c.id}`, jsonResponse(200, c)])),
    ...answers,
  };
  const held = async (path: string, request: MockRequest): Promise<unknown> => {
    const answer = server[`GET ${path}`];
    const response = typeof answer === 'function' ? await answer(request) : answer?.clone();
    return response?.ok ? response.json() : null;
  };
  return mockApi({
    ...server,
    'GET /api/v1/messaging/setup': async (request) =>
      jsonResponse(200, { keys: await held('/api/v1/messaging/keys/ada', request), backup: await held('/api/v1/messaging/backup', request) }),
  });
}

/** A conversation's timeline and keys. */
const timelineOf = (id: string, items: Message[], keys = [epochKey('ben')]) => ({
  [`GET /api/v1/messaging/conversations/${id}/messages`]: () => jsonResponse(200, { items, hasMore: false }),
  [`GET /api/v1/messaging/conversations/${id}/keys`]: jsonResponse(200, keys),
  [`POST /api/v1/messaging/conversations/${id}/typing`]: noBody,
  ...Object.fromEntries(items.map((m) => [`POST /api/v1/messaging/messages/${m.id}/read`, noBody])),
});

const composer = () => screen.getByRole('textbox', { name: 'Message' });

beforeEach(() => resetFakeCrypto());

/** A first visit: no keys on the server until the browser registers them; backups accepted. */
function firstVisit() {
  let registered = false;
  return mockMessenger({
    'GET /api/v1/messaging/keys/ada': () => (registered ? jsonResponse(200, serverKeys('ada', 1, 'new1')) : serverErrors.notFound()),
    'POST /api/v1/messaging/keys': ({ body }) => {
      registered = true;
      return jsonResponse(201, { ...serverKeys('ada', 1, 'new1'), ...(body as object) });
    },
    'PUT /api/v1/messaging/backup': ({ body }) => jsonResponse(200, body),
  });
}

describe('setting up the messenger in a browser', () => {
  it('makes and registers keys on the first visit, then asks for a backup passphrase of 12 characters, typed twice', async () => {
    const { calls } = firstVisit();
    session.start('token', me);
    const user = userEvent.setup();
    renderApp('/messages');

    expect(await screen.findByRole('heading', { name: 'Protect your messages with a backup passphrase' })).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ agreementKey: 'agree-new1', signingKey: 'sign-new1' });
    expect(screen.getByText(/Without a backup, your messages can only be read in this browser/)).toBeInTheDocument();

    await user.type(screen.getByLabelText(/^Backup passphrase/), 'too short');
    await user.click(screen.getByRole('button', { name: 'Save the backup' }));
    expect(await screen.findByText('The passphrase must be at least 12 characters long')).toBeInTheDocument();
    await user.type(screen.getByLabelText(/^Backup passphrase/), ' but longer now');
    await user.type(screen.getByLabelText(/^Confirm the passphrase/), 'something else entirely');
    await user.click(screen.getByRole('button', { name: 'Save the backup' }));
    expect(await screen.findByText('The two passphrases do not match')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);

    await user.clear(screen.getByLabelText(/^Confirm the passphrase/));
    await user.type(screen.getByLabelText(/^Confirm the passphrase/), 'too short but longer now');
    await user.click(screen.getByRole('button', { name: 'Save the backup' }));
    expect(await screen.findByRole('button', { name: 'New chat' })).toBeInTheDocument();
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.path).toBe('/api/v1/messaging/backup');
    expect(put.body).toMatchObject({ iterations: 600_000 });
    expect(JSON.stringify(put.body)).not.toContain('too short but longer now');
  });

  it("refuses a new passphrase that is easy to guess, or made of the user's own name or e-mail, and sends no backup then", async () => {
    const { calls } = firstVisit();
    session.start('token', me);
    const user = userEvent.setup();
    renderApp('/messages');
    await screen.findByRole('heading', { name: 'Protect your messages with a backup passphrase' });

    const choose = async (passphrase: string) => {
      await user.clear(screen.getByLabelText(/^Backup passphrase/));
      await user.type(screen.getByLabelText(/^Backup passphrase/), passphrase);
      await user.clear(screen.getByLabelText(/^Confirm the passphrase/));
      await user.type(screen.getByLabelText(/^Confirm the passphrase/), passphrase);
      await user.click(screen.getByRole('button', { name: 'Save the backup' }));
    };
    const tooWeak = 'This passphrase is too easy to guess. Use several unrelated words or a longer phrase.';
    // At least 12 characters, yet guessed at once; the last is Ada's e-mail address.
    for (const weak of ['passwordpassword', 'aaaaaaaaaaaa', 'ada@example.com!']) {
      await choose(weak);
      expect(await screen.findByText(tooWeak)).toBeInTheDocument();
      expect(screen.getByLabelText(/^Backup passphrase/)).toHaveAccessibleDescription(expect.stringContaining(tooWeak));
    }
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);

    await choose('correct horse battery staple orbit');
    expect(await screen.findByRole('button', { name: 'New chat' })).toBeInTheDocument();
    expect(screen.queryByText(tooWeak)).not.toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'PUT' && c.path === '/api/v1/messaging/backup')).toHaveLength(1);
  });

  it('lets the user skip the backup, and a later one makes new keys and says why', async () => {
    let versions = 0;
    const { calls } = mockMessenger({
      'GET /api/v1/messaging/keys/ada': () => (versions ? jsonResponse(200, serverKeys('ada', versions, `new${versions}`)) : serverErrors.notFound()),
      'POST /api/v1/messaging/keys': () => {
        versions += 1;
        return jsonResponse(201, serverKeys('ada', versions, `new${versions}`));
      },
      'PUT /api/v1/messaging/backup': ({ body }) => jsonResponse(200, body),
    });
    session.start('token', me);
    const user = userEvent.setup();
    renderApp('/messages');

    await user.click(await screen.findByRole('button', { name: 'Skip for now' }));
    await user.click(await screen.findByRole('button', { name: 'Key backup' }));
    const dialog = await screen.findByRole('dialog', { name: 'Key backup' });
    expect(await within(dialog).findByText(/Your keys are not backed up/)).toBeInTheDocument();
    expect(dialog).toHaveTextContent(
      'Why new keys? The keys this browser uses now are stored so that they cannot be copied out of it, not even into a backup. Setting up the backup therefore creates new keys for this browser',
    );
    await user.type(within(dialog).getByLabelText(/^Backup passphrase/), 'a long enough passphrase');
    await user.type(within(dialog).getByLabelText(/^Confirm the passphrase/), 'a long enough passphrase');
    await user.click(within(dialog).getByRole('button', { name: 'Set up the backup' }));

    expect(await screen.findByText('Your keys are backed up')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST' && c.path === '/api/v1/messaging/keys')).toHaveLength(2);
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1);
  });

  it('offers to restore from the backup (a wrong passphrase is refused) or to start fresh', async () => {
    mockMessenger({ 'GET /api/v1/messaging/backup': jsonResponse(200, fakeBackup('ada', 'the right passphrase', { 1: 'ada' })) });
    session.start('token', me);
    const user = userEvent.setup();
    renderApp('/messages');

    expect(await screen.findByRole('heading', { name: 'Restore your messages' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Start fresh' })).toBeInTheDocument();
    expect(screen.getByText('New keys for this browser: older messages will not be readable in this browser.')).toBeInTheDocument();

    await user.type(screen.getByLabelText(/^Backup passphrase/), 'the wrong passphrase');
    await user.click(screen.getByRole('button', { name: 'Restore with your backup passphrase' }));
    expect(await screen.findByText('This passphrase does not open your backup.')).toBeInTheDocument();

    await user.clear(screen.getByLabelText(/^Backup passphrase/));
    await user.type(screen.getByLabelText(/^Backup passphrase/), 'the right passphrase');
    await user.click(screen.getByRole('button', { name: 'Restore with your backup passphrase' }));
    expect(await screen.findByRole('button', { name: 'New chat' })).toBeInTheDocument();
  });

  it('restores with the existing passphrase, however easy to guess: only a new one is judged', async () => {
    mockMessenger({ 'GET /api/v1/messaging/backup': jsonResponse(200, fakeBackup('ada', 'passwordpassword', { 1: 'ada' })) });
    session.start('token', me);
    const user = userEvent.setup();
    renderApp('/messages');

    await user.type(await screen.findByLabelText(/^Backup passphrase/), 'passwordpassword');
    await user.click(screen.getByRole('button', { name: 'Restore with your backup passphrase' }));
    expect(await screen.findByRole('button', { name: 'New chat' })).toBeInTheDocument();
  });
});

describe('the conversation list', () => {
  it('names each conversation, counts the unread messages, and shows the archived ones on request', async () => {
    const { calls } = mockMessenger();
    signedInWithKeys();
    const user = userEvent.setup();
    renderApp('/messages');

    const rows = await screen.findAllByTestId('conversation-row');
    expect(rows.map((row) => row.querySelector('p')?.textContent)).toEqual(['Ben Bauer', 'Board']);
    expect(rows[0]).toHaveTextContent('2 unread messages');
    expect(rows[1]).toHaveTextContent('group of 3');

    await user.click(screen.getByRole('radio', { name: 'Archived' }));
    expect(await screen.findByText('No archived conversations')).toBeInTheDocument();
    expect(calls.map((c) => c.path)).toContain('/api/v1/messaging/conversations?archived=true&page=1&pageSize=30');
  });

  it('says so when there are none yet', async () => {
    mockMessenger({}, []);
    signedInWithKeys();
    renderApp('/messages');
    expect(await screen.findByText('No conversations yet')).toBeInTheDocument();
    expect(screen.getByText('Start a chat with a colleague, or create a group.')).toBeInTheDocument();
  });

  it('shows the unread total next to "Messages" in the sidebar', async () => {
    mockMessenger({ 'GET /api/v1/messaging/unread': jsonResponse(200, { unread: 3 }) });
    signedInWithKeys();
    renderApp('/messages');
    const link = await screen.findByRole('link', { name: /^Messages/ });
    expect(await within(link).findByTestId('unread-total')).toHaveTextContent('3');
    expect(link).toHaveAccessibleName('Messages 3 unread messages');
  });

  it('archives a conversation without asking, and Undo brings it back', async () => {
    const { calls } = mockMessenger({
      ...timelineOf('c-ben', []),
      'POST /api/v1/messaging/conversations/c-ben/archive': jsonResponse(200, { ...direct, archived: true }),
      'POST /api/v1/messaging/conversations/c-ben/unarchive': jsonResponse(200, direct),
    });
    signedInWithKeys();
    const user = userEvent.setup();
    renderApp('/messages?c=c-ben');

    await user.click(await screen.findByRole('button', { name: 'Archive conversation' }));
    expect(await screen.findByText('"Ben Bauer" was archived')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Undo' }));
    await waitFor(() => expect(calls.some((c) => c.path.endsWith('/unarchive'))).toBe(true));
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([
      '/api/v1/messaging/conversations/c-ben/archive',
      '/api/v1/messaging/conversations/c-ben/unarchive',
    ]);
  });
});

describe('starting a conversation', () => {
  it('shows people who never opened the messenger disabled, saying why, and opens a chat with someone else', async () => {
    const { calls } = mockMessenger({
      'POST /api/v1/messaging/conversations': jsonResponse(200, direct),
      ...timelineOf('c-ben', []),
    });
    signedInWithKeys();
    const user = userEvent.setup();
    const { location } = renderApp('/messages');

    await user.click(await screen.findByRole('button', { name: 'New chat' }));
    const dialog = await screen.findByRole('dialog', { name: 'New chat' });
    const doraButton = await within(dialog).findByRole('button', { name: /Dora Diaz/ });
    expect(doraButton).toBeDisabled();
    expect(doraButton).toHaveTextContent("Hasn't opened the messenger yet");
    expect(within(dialog).getByRole('button', { name: /Ben Bauer/ })).toBeEnabled();

    await user.click(within(dialog).getByRole('button', { name: /Ben Bauer/ }));
    expect(await screen.findByRole('heading', { name: 'Ben Bauer' })).toBeInTheDocument();
    expect(calls.find((c) => c.path === '/api/v1/messaging/conversations' && c.method === 'POST')?.body).toEqual({ participantId: 'ben' });
    expect(location().search).toBe('?c=c-ben');
  });

  it('makes a group of the people checked, people without keys unavailable', async () => {
    const { calls } = mockMessenger({ 'POST /api/v1/messaging/group-chats': jsonResponse(201, board), ...timelineOf('c-board', []) });
    signedInWithKeys();
    const user = userEvent.setup();
    renderApp('/messages');

    await user.click(await screen.findByRole('button', { name: 'New group' }));
    const dialog = await screen.findByRole('dialog', { name: 'New group' });
    await user.click(within(dialog).getByRole('button', { name: 'Create group' }));
    expect(await within(dialog).findByText('Choose at least one person')).toBeInTheDocument();
    expect(within(dialog).getByText('This field is required')).toBeInTheDocument();

    await user.type(within(dialog).getByLabelText(/^Group name/), 'Board');
    expect(await within(dialog).findByRole('checkbox', { name: /Dora Diaz/ })).toBeDisabled();
    await user.click(within(dialog).getByRole('checkbox', { name: /Ben Bauer/ }));
    await user.click(within(dialog).getByRole('checkbox', { name: /Cy Clark/ }));
    expect(dialog).toHaveTextContent('Members: you, Ben Bauer and Cy Clark');
    await user.click(within(dialog).getByRole('button', { name: 'Create group' }));

    expect(await screen.findByRole('heading', { name: 'Board' })).toBeInTheDocument();
    expect(calls.find((c) => c.path === '/api/v1/messaging/group-chats')?.body).toEqual({ name: 'Board', participantIds: ['ben', 'cy'] });
  });
});

describe('the composer', () => {
  it('sends on Enter (starting the first key epoch), keeps Shift+Enter as a new line, and counts down near 10,000 characters', async () => {
    const fresh = conversation({ id: 'c-new', members: [ada, ben], epoch: 0, rekeyRequired: true, unreadCount: 0 });
    const stored: Message[] = [];
    let current = fresh;
    const { calls } = mockMessenger(
      {
        ...timelineOf('c-new', [], []),
        'GET /api/v1/messaging/conversations/c-new/messages': () => jsonResponse(200, { items: stored, hasMore: false }),
        'GET /api/v1/messaging/conversations/c-new': () => jsonResponse(200, current),
        'POST /api/v1/messaging/conversations/c-new/epochs': () => {
          current = { ...fresh, epoch: 1, rekeyRequired: false };
          return jsonResponse(200, current);
        },
        'POST /api/v1/messaging/messages': ({ body }) => {
          const sent = { ...(body as Message), kind: 'message', senderId: 'ada', subjectId: null, createdAt: '2026-03-02T12:00:00Z' };
          stored.push(sent);
          return jsonResponse(201, sent);
        },
      },
      [fresh],
    );
    signedInWithKeys();
    const user = userEvent.setup();
    renderApp('/messages?c=c-new');

    await user.type(await screen.findByRole('textbox', { name: 'Message' }), 'First line{Shift>}{Enter}{/Shift}second line');
    expect(composer()).toHaveValue('First line\nsecond line');
    await user.keyboard('{Enter}');

    expect(await screen.findByText(/First line\s+second line/)).toBeInTheDocument();
    expect(composer()).toHaveValue('');
    const epoch = calls.find((c) => c.path === '/api/v1/messaging/conversations/c-new/epochs')!.body as { epoch: number; keys: { userId: string }[] };
    expect(epoch.epoch).toBe(1);
    expect(epoch.keys.map((k) => k.userId).sort()).toEqual(['ada', 'ben']);
    const sent = calls.find((c) => c.path === '/api/v1/messaging/messages')!.body as Message;
    expect(sent).toMatchObject({ conversationId: 'c-new', epoch: 1, senderKeyVersion: 1 });
    expect(JSON.stringify(sent)).not.toContain('second line');
    expect(calls.findIndex((c) => c.path.endsWith('/epochs'))).toBeLessThan(calls.findIndex((c) => c.path === '/api/v1/messaging/messages'));

    expect(composer()).toHaveAttribute('maxlength', '10000');
    expect(screen.queryByTestId('composer-counter')).not.toBeInTheDocument();
    fireEvent.change(composer(), { target: { value: 'x'.repeat(9_600) } });
    expect(screen.getByTestId('composer-counter')).toHaveTextContent('400 characters left');
  });

  it('keeps a message that failed, says why, and sends it again on Retry', async () => {
    let attempts = 0;
    const stored: Message[] = [];
    mockMessenger({
      ...timelineOf('c-ben', []),
      'GET /api/v1/messaging/conversations/c-ben/messages': () => jsonResponse(200, { items: stored, hasMore: false }),
      'POST /api/v1/messaging/messages': ({ body }) => {
        attempts += 1;
        if (attempts === 1) return serverErrors.internal();
        const sent = { ...(body as Message), kind: 'message', senderId: 'ada', subjectId: null, createdAt: '2026-03-02T12:00:00Z' };
        stored.push(sent);
        return jsonResponse(201, sent);
      },
    });
    signedInWithKeys();
    const user = userEvent.setup();
    renderApp('/messages?c=c-ben');

    await user.type(await screen.findByRole('textbox', { name: 'Message' }), 'Are you there?{Enter}');
    expect(await screen.findByText('Not sent: Server error. Please try again later.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(screen.queryByTestId('outgoing')).not.toBeInTheDocument());
    expect(screen.getByTestId('message')).toHaveTextContent('Are you there?');
    expect(attempts).toBe(2);
  });
});

describe('the timeline', () => {
  it('shows each message as text or says why it cannot, with membership lines and who has read what', async () => {
    const items = [
      systemLine('c-board', 'member_added', 'ada', 'cy'),
      message('c-board', 'ben', 'Sent before Ada joined', { epoch: 1 }),
      message('c-board', 'ben', 'Hello everyone', { epoch: 2 }),
      message('c-board', 'cy', 'Forged in transit', { epoch: 2, signature: 'forged' }),
      message('c-board', 'cy', 'Under keys this browser lacks', { epoch: 3 }),
      message('c-board', 'ada', 'Agenda is ready', { epoch: 2 }),
    ];
    const readBoard = { ...board, readMarks: [{ userId: 'ben', messageId: items[5].id, readAt: '2026-03-02T12:00:00Z' }] };
    mockMessenger(
      {
        ...timelineOf('c-board', items, [epochKey('ben', 2), { ...epochKey('cy', 3), keyVersion: 7 }]),
        'GET /api/v1/messaging/conversations/c-board': jsonResponse(200, readBoard),
      },
      [direct, readBoard],
    );
    signedInWithKeys();
    renderApp('/messages?c=c-board');

    const log = await screen.findByRole('log', { name: 'Messages' });
    expect(await within(log).findByText('Hello everyone')).toBeInTheDocument();
    expect(within(log).getByText('Agenda is ready')).toBeInTheDocument();
    expect(log).toHaveTextContent('You added Cy Clark');
    expect(await within(log).findByText('Sent before you joined this conversation.')).toBeInTheDocument();
    expect(within(log).getByText('This message could not be verified: it is not shown.')).toBeInTheDocument();
    // Epoch 3 was wrapped for key version 7, newer than this browser's: made in another browser.
    expect(within(log).getByText('Encrypted for the keys you made in another browser — restore your backup here to read it.')).toBeInTheDocument();
    expect(log).not.toHaveTextContent('Forged in transit');
    expect(log).not.toHaveTextContent('Under keys this browser lacks');
    expect(within(log).getByText('Seen by Ben Bauer')).toBeInTheDocument();
    expect(within(log).getByText(/March 2, 2026/)).toBeInTheDocument(); // the day's separator
  });

  it('loads earlier messages before the oldest shown, and says who is typing', async () => {
    const newest = message('c-ben', 'ben', 'The newest message');
    const older = message('c-ben', 'ben', 'An older message');
    const { calls } = mockMessenger({
      ...timelineOf('c-ben', [newest, older]),
      'GET /api/v1/messaging/conversations/c-ben/messages': ({ url }) =>
        jsonResponse(200, url.searchParams.get('before') ? { items: [older], hasMore: false } : { items: [newest], hasMore: true }),
    });
    signedInWithKeys();
    const user = userEvent.setup();
    renderApp('/messages?c=c-ben');

    const log = await screen.findByRole('log', { name: 'Messages' });
    expect(await within(log).findByText('The newest message')).toBeInTheDocument();
    await user.click(within(log).getByRole('button', { name: 'Load earlier messages' }));
    expect(await within(log).findByText('An older message')).toBeInTheDocument();
    expect(calls.map((c) => c.path)).toContain(`/api/v1/messaging/conversations/c-ben/messages?before=${newest.id}&limit=50`);
    expect(
      within(log)
        .getAllByTestId('message')
        .map((m) => m.textContent),
    ).toEqual([expect.stringContaining('An older'), expect.stringContaining('The newest')]);
    expect(within(log).getByText('This is the start of the conversation')).toBeInTheDocument();

    act(() => typing.start('c-ben', 'ben'));
    expect(await screen.findByText('Ben Bauer is typing…')).toBeInTheDocument();
    act(() => typing.stop('c-ben', 'ben'));
    expect(screen.queryByText('Ben Bauer is typing…')).not.toBeInTheDocument();
  });
});

describe('group members', () => {
  it('asks before removing someone and before leaving, naming them and the group', async () => {
    const { calls } = mockMessenger({
      ...timelineOf('c-board', []),
      'DELETE /api/v1/messaging/conversations/c-board/members/cy': noBody,
      'DELETE /api/v1/messaging/conversations/c-board/members/ada': noBody,
      'POST /api/v1/messaging/conversations/c-board/members': jsonResponse(200, { ...board, members: [...board.members, eve], rekeyRequired: true }),
    });
    signedInWithKeys();
    const user = userEvent.setup();
    const { location } = renderApp('/messages?c=c-board');

    await user.click(await screen.findByRole('button', { name: 'Members' }));
    const members = await screen.findByRole('dialog', { name: 'Members of Board' });
    await user.click(within(members).getByRole('button', { name: 'Remove Cy Clark' }));
    const remove = await screen.findByRole('dialog', { name: 'Remove member' });
    expect(remove).toHaveTextContent("Remove Cy Clark from Board? They will no longer receive the group's new messages.");
    await user.click(within(remove).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.path.endsWith('/members/cy'))).toBe(true));
    expect(await screen.findByText('Cy Clark was removed from Board')).toBeInTheDocument();

    expect(await within(members).findByRole('checkbox', { name: /Dora Diaz/ })).toBeDisabled();
    await user.click(within(members).getByRole('checkbox', { name: /Eve Evans/ }));
    await user.click(within(members).getByRole('button', { name: 'Add 1 person' }));
    const add = await screen.findByRole('dialog', { name: 'Add people' });
    expect(add).toHaveTextContent('Add Eve Evans to Board? They will see the messages sent from now on, not earlier ones.');
    await user.click(within(add).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST' && c.path.endsWith('/members'))?.body).toEqual({ userIds: ['eve'] }));

    await user.click(within(members).getByRole('button', { name: 'Leave group' }));
    const leave = await screen.findByRole('dialog', { name: 'Leave group' });
    expect(leave).toHaveTextContent('Leave Board? You will no longer receive its messages; a member can add you again.');
    await user.click(within(leave).getByRole('button', { name: 'Leave group' }));
    await waitFor(() => expect(location().search).toBe(''));
    expect(calls.some((c) => c.method === 'DELETE' && c.path.endsWith('/members/ada'))).toBe(true);
  });
});

describe('signing out', () => {
  it('drops the messenger engine with its keys in memory, and who is typing', async () => {
    mockMessenger({ ...timelineOf('c-ben', []), 'POST /api/v1/auth/logout': noBody });
    signedInWithKeys();
    const user = userEvent.setup();
    const { location } = renderApp('/messages?c=c-ben');
    await screen.findByRole('log', { name: 'Messages' });
    const engine = messengerFor('ada');
    act(() => typing.start('c-ben', 'ben'));

    await user.click(screen.getByRole('button', { name: /^Account menu for Ada Lovelace/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'Sign out' }));
    await waitFor(() => expect(location().pathname).toBe('/login'));
    expect(typing.in('c-ben')).toEqual([]);
    expect(messengerFor('ada')).not.toBe(engine);
  });
});
