import { createHmac } from 'node:crypto';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Page, expect, test } from '@playwright/test';
import { admin, apiToken, bearer, createEnterprise, createStaff, departmentId, sidebar, signIn, signInInFrench } from './support';

/**
 * Webhooks in the real app against the real server, delivering to a receiver this spec runs on
 * the loopback (playwright.config.ts lets the server reach private addresses over http): a CEO
 * makes one on "Integrations", sees its signing secret once, sends a test event and sees it
 * delivered (signed with that secret), sends it again, receives a real event, turns the webhook
 * off and on, rotates its secret, finds it all in the audit log and deletes it; the platform
 * admin makes and deletes a platform webhook of their own.
 */

/** Unique per run, so the suite can run again against the same database. */
const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
const ceo = { fullName: `Wanda Webhooks ${runId}`, email: `webhooks-ceo-${runId}@e2e.test`, password: 'ceo-password-1' };
const staff = { fullName: `Sol Staff ${runId}`, email: `webhooks-staff-${runId}@e2e.test`, password: 'staff-password-1' };
let enterpriseId = '';
let financeId = '';

type Received = { headers: IncomingHttpHeaders; body: string; path: string };
const received: Received[] = [];
let receiver: Server;
let receiverBase = '';

test.beforeAll(async ({ request }) => {
  enterpriseId = await createEnterprise(request, await apiToken(request, admin), `Webhooks ${runId}`, ceo);
  const ceoToken = await apiToken(request, ceo);
  financeId = await departmentId(request, ceoToken, enterpriseId, 'finance');
  await createStaff(request, ceoToken, staff, financeId);

  // The receiver: answers every delivery 204 and keeps what it was sent.
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body, path: req.url ?? '' });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  // The server keeps its connections to the receiver open for the next delivery: ended here.
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

/** What reached one path of the receiver. */
const deliveriesTo = (path: string) => received.filter((delivery) => delivery.path === path);

/**
 * Whether a delivery is signed with `secret` as the Standard Webhooks specification says:
 * `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under the secret's bytes.
 */
function signedWith(delivery: Received, secret: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${String(delivery.headers['webhook-id'])}.${String(delivery.headers['webhook-timestamp'])}.${delivery.body}`;
  const expected = `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  return String(delivery.headers['webhook-signature']).split(' ').includes(expected);
}

/** Fills in the new-webhook form and sends it. */
async function fillWebhookForm(page: Page, dialog: string, url: string, events: string[]) {
  await page.getByRole('button', { name: 'New webhook' }).click();
  const form = page.getByRole('dialog', { name: dialog });
  await form.getByLabel(/^URL/).fill(url);
  for (const event of events) await form.getByRole('checkbox', { name: event, exact: true }).check();
  await form.getByRole('button', { name: 'Create' }).click();
  return form;
}

/** Opens a row's "…" menu and picks an action. */
async function rowAction(page: Page, url: string, action: string) {
  await page.getByRole('button', { name: `Actions for ${url}` }).click();
  await page.getByRole('menuitem', { name: action }).click();
}

test("a CEO's webhook: made with its secret shown once, tested, delivered signed, sent again, turned off and on, rotated, audited and deleted", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const path = `/hooks/${runId}`;
  const url = `${receiverBase}${path}`;
  const webhookRow = page.getByTestId('webhook-row').filter({ hasText: url });

  await signIn(page, ceo);
  await sidebar(page).getByRole('link', { name: 'Integrations' }).click();
  await expect(page).toHaveURL(/\/ceo\/integrations$/);
  await expect(page.getByRole('heading', { level: 2, name: 'Webhooks' })).toBeVisible();
  await expect(page.getByText('No webhooks yet')).toBeVisible();

  // The form says which addresses this server takes: the tests' server allows private networks
  // (WEBHOOK_ALLOW_PRIVATE_NETWORKS, its receiver is on the loopback), as `make run` does.
  await page.getByRole('button', { name: 'New webhook' }).click();
  await expect(page.getByRole('dialog', { name: 'New webhook' })).toContainText(
    'Where the events are sent: an http or https address. This server also takes private and local addresses: it is set up for development.',
  );
  await page.getByRole('dialog', { name: 'New webhook' }).getByRole('button', { name: 'Cancel' }).click();
  // The server refuses an address with a user name in it: its reason is said under the field.
  const form = await fillWebhookForm(page, 'New webhook', 'https://someone:secret@example.com/hook', ['Report submitted']);
  await expect(form.getByText('Enter a whole http(s) address, without a user name or password.')).toBeVisible();
  await expect(form.getByLabel(/^URL/)).toHaveAttribute('aria-invalid', 'true');
  await form.getByRole('button', { name: 'Cancel' }).click();
  await expect(form).toBeHidden();

  await fillWebhookForm(page, 'New webhook', url, ['All report events']);
  const shown = page.getByRole('dialog', { name: 'Copy the signing secret' });
  await expect(shown).toContainText('This is the only time the secret is shown.');
  const secret = (await shown.getByTestId('webhook-secret').innerText()).trim();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
  await shown.getByRole('button', { name: 'Done' }).click();
  await expect(shown).toBeHidden();
  await expect(webhookRow.getByTestId('webhook-status')).toHaveText('Active');
  await expect(webhookRow).toContainText('All report events');
  await expect(page.getByText(secret)).toHaveCount(0);
  await page.reload();
  await expect(webhookRow).toBeVisible();
  await expect(page.getByText(secret)).toHaveCount(0);

  // A test event: delivered to the receiver, signed with the secret shown.
  await webhookRow.getByRole('button', { name: `Deliveries of ${url}` }).click();
  const deliveries = page.getByRole('dialog', { name: 'Deliveries' });
  await expect(deliveries.getByText('No deliveries yet')).toBeVisible();
  await deliveries.getByRole('button', { name: 'Send test event' }).click();
  await expect(page.getByText(`A test event is on its way to ${url}.`)).toBeVisible();
  const testRow = deliveries.getByTestId('delivery-row').filter({ hasText: 'webhook.test' });
  await expect(testRow.getByTestId('delivery-status')).toHaveText('Delivered');
  await expect(testRow.getByTestId('delivery-answer')).toHaveText('HTTP 204');
  await expect.poll(() => deliveriesTo(path).length).toBe(1);
  const first = deliveriesTo(path)[0];
  expect(JSON.parse(first.body)).toMatchObject({ type: 'webhook.test' });
  expect(signedWith(first, secret)).toBe(true);

  // Sent again: the same message (its id) reaches the receiver a second time.
  await testRow.getByRole('button', { name: /^Redeliver the event “Test event” of / }).click();
  await expect(page.getByText('The delivery is on its way again.')).toBeVisible();
  await expect.poll(() => deliveriesTo(path).length).toBe(2);
  expect(deliveriesTo(path)[1].headers['webhook-id']).toBe(first.headers['webhook-id']);
  await expect(testRow.getByTestId('delivery-status')).toHaveText('Delivered');

  // A real event: a report submitted in the enterprise reaches the receiver and the list.
  const report = await request.post(`/api/v1/departments/${financeId}/reports`, {
    headers: bearer(await apiToken(request, staff)),
    data: { title: `Hooked report ${runId}`, content: 'Figures.', periodStart: '2026-01-01', periodEnd: '2026-03-31', status: 'submitted' },
  });
  expect(report.status(), await report.text()).toBe(201);
  await expect.poll(() => deliveriesTo(path).some((delivery) => delivery.body.includes('"report.submitted"'))).toBe(true);
  await deliveries.getByRole('button', { name: 'Refresh' }).click();
  await expect(deliveries.getByTestId('delivery-row').filter({ hasText: 'Report submitted' }).getByTestId('delivery-status')).toHaveText('Delivered');
  await page.keyboard.press('Escape');
  await expect(deliveries).toBeHidden();

  // Turned off (asked first), then back on.
  await rowAction(page, url, 'Turn off');
  await page.getByRole('dialog', { name: 'Turn this webhook off?' }).getByRole('button', { name: 'Turn off' }).click();
  await expect(page.getByText(`The webhook ${url} was turned off.`)).toBeVisible();
  await expect(webhookRow.getByTestId('webhook-status')).toHaveText('Off');
  await rowAction(page, url, 'Turn on');
  await expect(page.getByText(`The webhook ${url} was turned back on.`)).toBeVisible();
  await expect(webhookRow.getByTestId('webhook-status')).toHaveText('Active');

  // A new secret (asked first), shown once; the previous one keeps signing for a day.
  await rowAction(page, url, 'Rotate secret');
  await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
  const rotated = page.getByRole('dialog', { name: 'Copy the new signing secret' });
  await expect(rotated).toContainText('The previous secret keeps signing deliveries for 24 hours');
  const newSecret = (await rotated.getByTestId('webhook-secret').innerText()).trim();
  expect(newSecret).not.toBe(secret);
  await rotated.getByRole('button', { name: 'Done' }).click();

  // The audit log tells what was done to it.
  await sidebar(page).getByRole('link', { name: 'Audit log' }).click();
  await page.getByRole('combobox', { name: 'Action' }).click();
  await page.getByRole('option', { name: 'All webhook actions' }).click();
  await expect(page).toHaveURL(/\/audit\?action=webhook$/);
  const sentences = page.getByTestId('audit-sentence');
  await expect(sentences).toHaveText([
    `${ceo.fullName} rotated the signing secret of the webhook ${url}`,
    `${ceo.fullName} turned the webhook ${url} back on`,
    `${ceo.fullName} turned off the webhook ${url}`,
    `${ceo.fullName} created the webhook ${url}`,
  ]);

  // Deleted (asked first).
  await sidebar(page).getByRole('link', { name: 'Integrations' }).click();
  await expect(page).toHaveURL(/\/ceo\/integrations$/);
  await rowAction(page, url, 'Delete');
  const confirm = page.getByRole('dialog', { name: 'Delete this webhook?' });
  await expect(confirm).toContainText('This cannot be undone.');
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText(`The webhook ${url} was deleted.`)).toBeVisible();
  await expect(page.getByText('No webhooks yet')).toBeVisible();
});

test("the platform admin's own webhooks: on Integrations in their sidebar", async ({ page }) => {
  const url = `${receiverBase}/platform/${runId}`;
  await signIn(page, admin);
  await sidebar(page).getByRole('link', { name: 'Integrations' }).click();
  await expect(page).toHaveURL(/\/admin\/integrations$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Integrations' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: 'Platform webhooks' })).toBeVisible();

  await fillWebhookForm(page, 'New platform webhook', url, ['Spreadsheet created']);
  const shown = page.getByRole('dialog', { name: 'Copy the signing secret' });
  await expect(shown.getByTestId('webhook-secret')).toHaveText(/^whsec_/);
  await shown.getByRole('button', { name: 'Done' }).click();
  const row = page.getByTestId('webhook-row').filter({ hasText: url });
  await expect(row.getByTestId('webhook-status')).toHaveText('Active');
  await expect(row).toContainText('Spreadsheet created');

  // Deleted again: a platform webhook hears every enterprise, the other specs' included.
  await rowAction(page, url, 'Delete');
  await page.getByRole('dialog', { name: 'Delete this webhook?' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText(`The webhook ${url} was deleted.`)).toBeVisible();
  await expect(row).toHaveCount(0);
});

test('the webhook form says in French which addresses this server takes', async ({ page }) => {
  await signInInFrench(page, ceo);
  await page.goto('/ceo/integrations');
  await page.getByRole('button', { name: 'Nouveau webhook' }).click();
  const form = page.getByRole('dialog', { name: 'Nouveau webhook' });
  await expect(form).toContainText(
    'Où les événements sont envoyés : une adresse http ou https. Ce serveur accepte aussi les adresses privées et locales : il est configuré pour le développement.',
  );
  await form.getByLabel(/^URL/).fill('crm.example.com');
  await form.getByRole('button', { name: 'Créer' }).click();
  await expect(form.getByText('Saisissez une adresse complète, commençant par http:// ou https://')).toBeVisible();
});
