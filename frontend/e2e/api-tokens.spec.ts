import { type APIResponse, type Page, expect, test } from '@playwright/test';
import { admin, apiToken, bearer, createEnterprise, sidebar, signIn } from './support';

/**
 * Tokens for programs, in the real app against the real server: a person's own token (from the
 * user menu), made with one scope, shown once, used as a program would (within its scope, and
 * refused outside it), then revoked in the app and refused from then on; and an enterprise's
 * service credential, made by its CEO on "Integrations" and revoked by the platform admin from
 * the enterprise's page.
 */

/** Unique per run, so the suite can run again against the same database. */
const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
const ceo = { fullName: `Tessa Tokens ${runId}`, email: `tokens-ceo-${runId}@e2e.test`, password: 'ceo-password-1' };
let enterpriseId = '';

test.beforeAll(async ({ request }) => {
  enterpriseId = await createEnterprise(request, await apiToken(request, admin), `Tokens ${runId}`, ceo);
});

const code = async (response: APIResponse) => ((await response.json()) as { code: string }).code;

/** Fills in and sends the new-token form; returns the secret the next dialog shows, once. */
async function createToken(page: Page, button: string, dialog: string, name: string, scope: string): Promise<string> {
  await page.getByRole('button', { name: button }).click();
  const form = page.getByRole('dialog', { name: dialog });
  await form.getByLabel(/^Name/).fill(name);
  await form.getByRole('checkbox', { name: scope }).check();
  await form.getByRole('button', { name: 'Create' }).click();
  const shown = page.getByRole('dialog', { name: 'Copy the new token' });
  await expect(shown).toContainText(
    'This is the only time the token is shown. Copy it now and keep it somewhere safe: once this window is closed, nobody can show it again.',
  );
  return (await shown.getByTestId('token-secret').innerText()).trim();
}

test('a personal token: made with reports:read, shown once, works within its scope only, and is refused once revoked', async ({ page, baseURL }) => {
  await signIn(page, ceo);
  await page.getByRole('button', { name: /^Account menu for / }).click();
  await page.getByRole('menuitem', { name: 'API tokens' }).click();
  await expect(page).toHaveURL(/\/settings\/api-tokens$/);
  await expect(page.getByRole('heading', { level: 1, name: 'API tokens' })).toBeVisible();
  await expect(page.getByText('No API tokens yet')).toBeVisible();

  const name = `Report reader ${runId}`;
  const secret = await createToken(page, 'New token', 'New API token', name, 'Reports: read');
  expect(secret).toMatch(/^ept_[A-Za-z0-9_-]{20,}$/);
  const shown = page.getByRole('dialog', { name: 'Copy the new token' });
  await expect(shown.getByTestId('token-example')).toHaveText(`curl -H "Authorization: Bearer ${secret}" ${baseURL}/api/v1/auth/me`);

  // As a program would use it: the example's request answers with the CEO's account...
  const me = await page.request.get('/api/v1/auth/me', { headers: bearer(secret) });
  expect(me.status(), await me.text()).toBe(200);
  expect(((await me.json()) as { email: string }).email).toBe(ceo.email);
  // ...a read within its scope works...
  const reports = await page.request.get(`/api/v1/enterprises/${enterpriseId}/reports`, { headers: bearer(secret) });
  expect(reports.status(), await reports.text()).toBe(200);
  // ...and a write outside it is refused, although the CEO may make people.
  const write = await page.request.post('/api/v1/users', {
    headers: bearer(secret),
    data: { fullName: 'Not Made', email: `not-made-${runId}@e2e.test`, password: 'not-made-password-1', role: 'DepartmentUser' },
  });
  expect(write.status(), await write.text()).toBe(403);
  expect(await code(write)).toBe('insufficient_scope');

  // Closed, the secret is gone for good; the list has the token, by its prefix only.
  await shown.getByRole('button', { name: 'Done' }).click();
  await expect(shown).toBeHidden();
  const row = page.getByTestId('token-row').filter({ hasText: name });
  await expect(row).toContainText('Reports · read');
  await expect(row.getByTestId('token-prefix')).toHaveText(/^ept_\S+…$/);
  expect(secret.startsWith((await row.getByTestId('token-prefix').innerText()).replace('…', ''))).toBe(true);
  await expect(page.getByText(secret)).toHaveCount(0);
  await page.reload();
  await expect(row).toBeVisible();
  await expect(page.getByText(secret)).toHaveCount(0);

  await row.getByRole('button', { name: `Revoke ${name}` }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke this token?' });
  await expect(confirm).toContainText(`Programs that use “${name}”`);
  await confirm.getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByText(`“${name}” was revoked.`)).toBeVisible();
  await expect(row).toHaveCount(0);
  await expect(page.getByText('No API tokens yet')).toBeVisible();

  const after = await page.request.get('/api/v1/auth/me', { headers: bearer(secret) });
  expect(after.status(), await after.text()).toBe(401);
  // The person's own session is not touched: the app still works.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'API tokens' })).toBeVisible();
});

test("a service credential: the CEO makes one on Integrations; it reads the enterprise's reports; the admin revokes it from the enterprise's page", async ({
  page: ceoPage,
  browser,
  baseURL,
}) => {
  let page = ceoPage;
  await signIn(page, ceo);
  await sidebar(page).getByRole('link', { name: 'Integrations' }).click();
  await expect(page).toHaveURL(/\/ceo\/integrations$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Integrations' })).toBeVisible();

  const name = `Warehouse sync ${runId}`;
  const secret = await createToken(page, 'New credential', 'New service credential', name, 'Reports: write');
  expect(secret).toMatch(/^eps_[A-Za-z0-9_-]{20,}$/);
  const shown = page.getByRole('dialog', { name: 'Copy the new token' });
  const reportsPath = `/api/v1/enterprises/${enterpriseId}/reports`;
  await expect(shown.getByTestId('token-example')).toHaveText(`curl -H "Authorization: Bearer ${secret}" ${baseURL}${reportsPath}`);
  const reports = await page.request.get(reportsPath, { headers: bearer(secret) });
  expect(reports.status(), await reports.text()).toBe(200);
  await shown.getByRole('button', { name: 'Done' }).click();
  await expect(shown).toBeHidden();
  // Write includes read: the one scope sent is the write one.
  const row = page.getByTestId('token-row').filter({ hasText: name });
  await expect(row).toContainText('Reports · write');
  await expect(row).not.toContainText('Reports · read');

  // The platform admin, in a browser of their own, finds it from the enterprise's page and revokes it.
  page = await (await browser.newContext()).newPage();
  await signIn(page, admin);
  await page.goto(`/admin/enterprises/${enterpriseId}`);
  await page.getByRole('link', { name: 'Manage integrations' }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/enterprises/${enterpriseId}/integrations$`));
  await expect(page.getByRole('heading', { level: 1, name: `Integrations: Tokens ${runId}` })).toBeVisible();
  const listed = page.getByTestId('token-row').filter({ hasText: name });
  await listed.getByRole('button', { name: `Revoke ${name}` }).click();
  await page.getByRole('dialog', { name: 'Revoke this token?' }).getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByText(`“${name}” was revoked.`)).toBeVisible();
  await expect(listed).toHaveCount(0);
  const after = await page.request.get(reportsPath, { headers: bearer(secret) });
  expect(after.status(), await after.text()).toBe(401);
});
