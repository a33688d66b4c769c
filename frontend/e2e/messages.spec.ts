import { type APIRequestContext, type Browser, type Page, expect, test } from '@playwright/test';
import pg from 'pg';
import { admin, sidebar, signIn, socketReady } from './support';

/**
 * The end-to-end encrypted messenger in real browsers against the real server: a direct chat
 * between two people live, a group of three, a member removed who gets nothing after, a new
 * browser that restores the keys from the backup passphrase and reads the history, and, last,
 * a search of every text, varchar, jsonb and bytea column of the database for each plaintext sent.
 */

const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
const password = `Messenger e2e ${runId}!`;
const person = (first: string) => ({ name: `${first} ${runId}`, email: `msg-${first.toLowerCase()}-${runId}@e2e.test`, password });
const ana = person('Ana');
const ben = person('Ben');
const cy = person('Cy');
const ceo = person('Ceo');
const passphrase = `ana backup passphrase ${runId}`;
const groupName = `Trio ${runId}`;

/** Every plaintext the test sends: none may appear anywhere in the database. */
const plaintexts = {
  direct: `Lunch at noon? secret-direct-${runId}`,
  reply: `Yes, at the usual place. secret-reply-${runId}`,
  group: `Quarterly plan draft secret-group-${runId}`,
  groupReply: `Cy agrees secret-cy-${runId}`,
  afterRemoval: `Cy must not read this secret-after-${runId}`,
  unarchived: `Back on the list secret-unarchived-${runId}`,
};

async function token(request: APIRequestContext, credentials: { email: string; password: string }): Promise<string> {
  const response = await request.post('/api/v1/auth/login', { data: credentials });
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

test.beforeAll(async ({ request }) => {
  const adminToken = await token(request, admin);
  const enterprise = await request.post('/api/v1/enterprises', {
    headers: { Authorization: `Bearer ${adminToken}` },
    data: { name: `Messenger ${runId}`, ceoFullName: ceo.name, ceoEmail: ceo.email, ceoPassword: ceo.password },
  });
  expect(enterprise.status(), await enterprise.text()).toBe(201);
  const ceoToken = await token(request, ceo);
  for (const user of [ana, ben, cy]) {
    const created = await request.post('/api/v1/users', {
      headers: { Authorization: `Bearer ${ceoToken}` },
      data: { fullName: user.name, email: user.email, password: user.password, role: 'DepartmentUser' },
    });
    expect(created.status(), await created.text()).toBe(201);
  }
});

/** A browser of its own (its own IndexedDB: its own keys), signed in, on /messages with the socket up. */
/** What each page logged as a console error (a failed request is one: Chromium logs every 4xx). */
const consoleErrors = new WeakMap<Page, string[]>();

async function open(browser: Browser, user: typeof ana): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  consoleErrors.set(page, errors);
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  const ready = socketReady(page);
  await signIn(page, user);
  await ready;
  await sidebar(page)
    .getByRole('link', { name: /^Messages/ })
    .click();
  await expect(page).toHaveURL(/\/messages$/);
  return page;
}

const timeline = (page: Page) => page.getByRole('log', { name: 'Messages' });
const composer = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const row = (page: Page, name: string) => page.getByTestId('conversation-row').filter({ hasText: name });

async function send(page: Page, text: string) {
  await composer(page).fill(text);
  await composer(page).press('Enter');
  await expect(composer(page)).toHaveValue('');
  // On the server: in the timeline, no longer waiting below it.
  await expect(timeline(page).getByTestId('message').filter({ hasText: text })).toBeVisible();
  await expect(page.getByTestId('outgoing')).toHaveCount(0);
}

test('messages are end to end encrypted: live between two people, in a group, not for a removed member, restored in a new browser, and never stored in clear', async ({
  browser,
}) => {
  test.setTimeout(180_000);

  const a = await open(browser, ana);
  const b = await open(browser, ben);
  const c = await open(browser, cy);

  await test.step('first visit: keys are made; Ana backs them up, Ben and Cy skip', async () => {
    await expect(a.getByRole('heading', { name: 'Protect your messages with a backup passphrase' })).toBeVisible();
    await a.getByLabel('Backup passphrase', { exact: false }).first().fill(passphrase);
    await a.getByLabel('Confirm the passphrase', { exact: false }).fill(passphrase);
    await a.getByRole('button', { name: 'Save the backup' }).click();
    for (const page of [b, c]) {
      await expect(page.getByText('Without a backup, your messages can only be read in this browser', { exact: false })).toBeVisible();
      await page.getByRole('button', { name: 'Skip for now' }).click();
    }
    for (const page of [a, b, c]) await expect(page.getByText('No conversations yet')).toBeVisible();
    // No keys and no backup yet is what a first visit expects: no 404, no console error.
    for (const page of [a, b, c]) expect(consoleErrors.get(page)).toEqual([]);
  });

  await test.step('a direct chat, live both ways', async () => {
    await a.getByRole('button', { name: 'New chat' }).first().click();
    const picker = a.getByRole('dialog', { name: 'New chat' });
    await picker.getByLabel('Search people').fill('Ben');
    await picker.getByRole('button', { name: new RegExp(ben.name) }).click();
    await expect(a.getByRole('heading', { name: ben.name })).toBeVisible();
    await send(a, plaintexts.direct);

    // Ben did not reload: the conversation, its unread count and the sidebar badge arrive live.
    await expect(sidebar(b).getByTestId('unread-total')).toHaveText('1');
    await row(b, ana.name).click();
    await expect(timeline(b).getByText(plaintexts.direct)).toBeVisible();
    await expect(sidebar(b).getByTestId('unread-total')).toHaveCount(0);
    await send(b, plaintexts.reply);
    await expect(timeline(a).getByText(plaintexts.reply)).toBeVisible();
    await expect(timeline(b).getByText(`Seen by ${ana.name}`)).toBeVisible();
  });

  await test.step('a message into a conversation Ben archived brings it back to his inbox, unread', async () => {
    await b.getByRole('button', { name: 'Archive conversation' }).click();
    await expect(b.getByText(`"${ana.name}" was archived`)).toBeVisible();
    // Ben is elsewhere in the messenger when the message comes.
    await b.goto('/messages');
    await expect(b.getByText('No conversations yet')).toBeVisible();
    await send(a, plaintexts.unarchived);
    await expect(row(b, ana.name)).toBeVisible();
    await expect(sidebar(b).getByTestId('unread-total')).toHaveText('1');
    await row(b, ana.name).click();
    await expect(timeline(b).getByText(plaintexts.unarchived)).toBeVisible();
    await expect(sidebar(b).getByTestId('unread-total')).toHaveCount(0);
  });

  await test.step('a group of three', async () => {
    await a.getByRole('button', { name: 'New group' }).click();
    const dialog = a.getByRole('dialog', { name: 'New group' });
    await dialog.getByLabel('Group name', { exact: false }).fill(groupName);
    await dialog.getByLabel('Search people').fill(runId);
    await dialog.getByRole('checkbox', { name: ben.name }).check();
    await dialog.getByRole('checkbox', { name: cy.name }).check();
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await expect(a.getByRole('heading', { name: groupName })).toBeVisible();
    await send(a, plaintexts.group);

    await row(b, groupName).click();
    await expect(timeline(b).getByText(plaintexts.group)).toBeVisible();
    await row(c, groupName).click();
    await expect(timeline(c).getByText(plaintexts.group)).toBeVisible();
    await send(c, plaintexts.groupReply);
    await expect(timeline(a).getByText(plaintexts.groupReply)).toBeVisible();
    await expect(timeline(b).getByText(plaintexts.groupReply)).toBeVisible();
  });

  await test.step('Cy is removed and gets nothing sent after', async () => {
    await a.getByRole('button', { name: 'Members' }).click();
    const members = a.getByRole('dialog', { name: `Members of ${groupName}` });
    await members.getByRole('button', { name: `Remove ${cy.name}` }).click();
    const confirm = a.getByRole('dialog', { name: 'Remove member' });
    await expect(confirm).toContainText(`Remove ${cy.name} from ${groupName}? They will no longer receive the group's new messages.`);
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await expect(members.getByRole('button', { name: `Remove ${cy.name}` })).toHaveCount(0);
    await a.keyboard.press('Escape');
    await expect(timeline(a).getByText(`You removed ${cy.name}`)).toBeVisible();

    await send(a, plaintexts.afterRemoval);
    await expect(timeline(b).getByText(plaintexts.afterRemoval)).toBeVisible();
    // Cy's open conversation is gone at once, and the message never reached the page.
    await expect(c.getByText('This conversation is not available')).toBeVisible();
    await expect(c.getByText(plaintexts.afterRemoval)).toHaveCount(0);
    await expect(row(c, groupName)).toHaveCount(0);
  });

  await test.step('a new browser restores Ana’s keys with the passphrase and reads the history', async () => {
    const fresh = await open(browser, ana);
    await expect(fresh.getByRole('heading', { name: 'Restore your messages' })).toBeVisible();
    await fresh.getByLabel('Backup passphrase', { exact: false }).first().fill('not the passphrase at all');
    await fresh.getByRole('button', { name: 'Restore with your backup passphrase' }).click();
    await expect(fresh.getByRole('alert').filter({ hasText: 'This passphrase does not open your backup.' })).toBeVisible();
    await fresh.getByLabel('Backup passphrase', { exact: false }).first().fill(passphrase);
    await fresh.getByRole('button', { name: 'Restore with your backup passphrase' }).click();

    await row(fresh, ben.name).click();
    await expect(timeline(fresh).getByText(plaintexts.direct)).toBeVisible();
    await expect(timeline(fresh).getByText(plaintexts.reply)).toBeVisible();
    await row(fresh, groupName).click();
    for (const text of [plaintexts.group, plaintexts.groupReply, plaintexts.afterRemoval]) await expect(timeline(fresh).getByText(text)).toBeVisible();
    await expect(timeline(fresh).getByTestId('message-problem')).toHaveCount(0);
  });

  await test.step('the database holds none of the plaintexts, and Cy holds no copy of the key after removal', async () => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const columns = (
        await client.query<{ schema: string; table: string; column: string; type: string }>(
          `select c.table_schema as schema, c.table_name as table, c.column_name as column, c.data_type as type
             from information_schema.columns c
             join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
            where c.table_schema not in ('pg_catalog', 'information_schema')
              and c.data_type in ('text', 'character varying', 'jsonb', 'bytea')`,
        )
      ).rows;
      expect(columns.some((c) => c.table === 'messages' && c.column === 'ciphertext' && c.type === 'bytea')).toBe(true);

      const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
      /** Every (table, column) where the text appears, as text, inside jsonb, or as UTF-8 bytes. */
      const search = async (text: string): Promise<string[]> => {
        const found: string[] = [];
        for (const { schema, table, column, type } of columns) {
          const value = type === 'jsonb' ? `${ident(column)}::text` : ident(column);
          const needle = type === 'bytea' ? `convert_to($1, 'UTF8')` : '$1';
          const { rows } = await client.query<{ n: string }>(
            `select count(*) as n from ${ident(schema)}.${ident(table)} where position(${needle} in ${value}) > 0`,
            [text],
          );
          if (Number(rows[0].n) > 0) found.push(`${schema}.${table}.${column}`);
        }
        return found;
      };

      // The search finds what is there: a planted string in a text, a jsonb and a bytea column, and the group's name (not encrypted).
      const canary = `planted-canary-${runId}`;
      // In a schema of its own: the server's role (the test's too) may create schemas, not tables in public.
      await client.query('create schema if not exists e2e_canary');
      await client.query('create table if not exists e2e_canary.messages_canary (t text, j jsonb, b bytea)');
      try {
        await client.query(`insert into e2e_canary.messages_canary values ($1, jsonb_build_object('k', $1::text), convert_to($1, 'UTF8'))`, [canary]);
        columns.push(
          { schema: 'e2e_canary', table: 'messages_canary', column: 't', type: 'text' },
          { schema: 'e2e_canary', table: 'messages_canary', column: 'j', type: 'jsonb' },
          { schema: 'e2e_canary', table: 'messages_canary', column: 'b', type: 'bytea' },
        );
        expect((await search(canary)).sort()).toEqual(['e2e_canary.messages_canary.b', 'e2e_canary.messages_canary.j', 'e2e_canary.messages_canary.t']);
        expect((await search(groupName)).some((where) => where.endsWith('.conversations.name'))).toBe(true);

        for (const text of Object.values(plaintexts)) expect(await search(text), text).toEqual([]);
        // Nor any distinctive part of one (the secret markers alone).
        for (const text of Object.values(plaintexts)) expect(await search(text.split(' ').at(-1)!), text).toEqual([]);
      } finally {
        await client.query('drop schema if exists e2e_canary cascade');
      }

      // The group's newest epoch key was wrapped for Ana and Ben only.
      const users = await client.query<{ id: string; email: string }>('select id, email from public.users where email = any($1)', [
        [ana.email, ben.email, cy.email],
      ]);
      const idOf = (email: string) => users.rows.find((u) => u.email === email)!.id;
      const tenants = (
        await client.query<{ schema: string }>(`select table_schema as schema from information_schema.tables where table_name = 'conversation_keys'`)
      ).rows;
      let recipients: string[] | undefined;
      for (const { schema: name } of tenants) {
        const { rows } = await client.query<{ user_id: string }>(
          `select k.user_id::text from ${ident(name)}.conversation_keys k join ${ident(name)}.conversations c on c.id = k.conversation_id
            where c.name = $1 and k.epoch = c.epoch`,
          [groupName],
        );
        if (rows.length > 0) recipients = rows.map((r) => r.user_id).sort();
      }
      expect(recipients).toEqual([idOf(ana.email), idOf(ben.email)].sort());
    } finally {
      await client.end();
    }
  });
});

test('after someone opens a new browser without a backup, what is sent to them from then on reads there, in a direct chat and a group', async ({
  browser,
  request,
}) => {
  test.setTimeout(180_000);
  const rita = person('Rita');
  const sam = person('Sam');
  const tom = person('Tom');
  const ceoToken = await token(request, ceo);
  for (const user of [rita, sam, tom]) {
    const created = await request.post('/api/v1/users', {
      headers: { Authorization: `Bearer ${ceoToken}` },
      data: { fullName: user.name, email: user.email, password: user.password, role: 'DepartmentUser' },
    });
    expect(created.status(), await created.text()).toBe(201);
  }
  const texts = {
    direct: `Before the new browser ${runId}`,
    group: `Group before the new browser ${runId}`,
    directAfter: `After the new browser ${runId}`,
    groupAfter: `Group after the new browser ${runId}`,
  };
  const s = await open(browser, sam);
  const r = await open(browser, rita);
  const t = await open(browser, tom);
  for (const page of [s, r, t]) await page.getByRole('button', { name: 'Skip for now' }).click();

  await test.step('a direct chat and a group, read in Rita’s first browser', async () => {
    await s.getByRole('button', { name: 'New chat' }).first().click();
    const picker = s.getByRole('dialog', { name: 'New chat' });
    await picker.getByLabel('Search people').fill('Rita');
    await picker.getByRole('button', { name: new RegExp(rita.name) }).click();
    await expect(s.getByRole('heading', { name: rita.name })).toBeVisible();
    await send(s, texts.direct);
    await s.getByRole('button', { name: 'New group' }).click();
    const dialog = s.getByRole('dialog', { name: 'New group' });
    await dialog.getByLabel('Group name', { exact: false }).fill(`New browser ${runId}`);
    await dialog.getByLabel('Search people').fill(runId);
    await dialog.getByRole('checkbox', { name: rita.name }).check();
    await dialog.getByRole('checkbox', { name: tom.name }).check();
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await expect(s.getByRole('heading', { name: `New browser ${runId}` })).toBeVisible();
    await send(s, texts.group);
    await row(r, sam.name).click();
    await expect(timeline(r).getByText(texts.direct)).toBeVisible();
  });

  const fresh = await open(browser, rita);
  await test.step('Rita opens a new browser and skips the backup: new keys', async () => {
    await expect(fresh.getByText('You have used the messenger before, in another browser', { exact: false })).toBeVisible();
    await fresh.getByRole('button', { name: 'Skip for now' }).click();
  });

  await test.step('what Sam and Tom send from then on reads in the new browser; only what came before does not, and says so', async () => {
    await row(s, rita.name).click();
    await expect(s.getByRole('heading', { name: rita.name })).toBeVisible();
    await send(s, texts.directAfter);
    await row(t, `New browser ${runId}`).click();
    await expect(t.getByRole('heading', { name: `New browser ${runId}` })).toBeVisible();
    await send(t, texts.groupAfter);

    await row(fresh, sam.name).click();
    await expect(fresh.getByRole('heading', { name: sam.name })).toBeVisible();
    await expect(timeline(fresh).getByText(texts.directAfter)).toBeVisible();
    await expect(timeline(fresh).getByText('Sent before this browser had your keys — restore your backup to read it.')).toBeVisible();
    await row(fresh, `New browser ${runId}`).click();
    await expect(fresh.getByRole('heading', { name: `New browser ${runId}` })).toBeVisible();
    await expect(timeline(fresh).getByText(texts.groupAfter)).toBeVisible();
    await expect(timeline(fresh).getByText('Sent before this browser had your keys — restore your backup to read it.')).toBeVisible();
  });

  await test.step('Rita’s first browser, still open, reads what came before and says why it cannot read the rest', async () => {
    await row(r, sam.name).click();
    await expect(timeline(r).getByText(texts.direct)).toBeVisible();
    await expect(timeline(r).getByText('Encrypted for the keys you made in another browser — restore your backup here to read it.')).toBeVisible();
  });
});
