import { readFileSync } from 'node:fs';
import { type APIRequestContext, type Page, expect, test } from '@playwright/test';
import { overflowing, settle, visit } from './screens';
import { admin } from './support';

/**
 * The main screens in French (the longer language) at 800 px: no text runs out of its box
 * (`overflowing` in screens.ts). At 1280 px the accessibility walk checks the same on each screen
 * it scans in French, in the same visit (accessibility.spec.ts), with names as long as these.
 */

type Messages = { [key: string]: string | Messages };
const fr = JSON.parse(readFileSync(new URL('../src/i18n/locales/fr.json', import.meta.url), 'utf8')) as Messages;
const text = (key: string) => key.split('.').reduce<string | Messages>((node, part) => (node as Messages)[part], fr) as string;

const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
type Credentials = { email: string; password: string };
const ceo = { email: `overflow-ceo-${runId}@e2e.test`, password: 'ceo-password-1' };
// Long names and addresses, as real ones can be.
const head = {
  name: `Héloïse Delacroix-Montgolfier ${runId}`,
  email: `heloise.delacroix-montgolfier-${runId}@entreprise-exemple.e2e.test`,
  password: 'head-password-1',
};
const ids = { enterprise: '', finance: '', submitted: '', draft: '', rejected: '' };
/** The tests' OpenID provider (scripts/oidc): the enterprise's single sign-on card is filled in, and required. */
const OIDC_ISSUER = process.env.OIDC_ISSUER ?? 'http://localhost:2590';

async function bearer(request: APIRequestContext, credentials: Credentials, from?: string) {
  const response = await request.post('/api/v1/auth/login', { data: credentials, headers: from ? { 'X-Forwarded-For': from } : {} });
  expect(response.status()).toBe(200);
  return { Authorization: `Bearer ${((await response.json()) as { token: string }).token}` };
}

async function created(response: Awaited<ReturnType<APIRequestContext['post']>>): Promise<string> {
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

test.beforeAll(async ({ request }) => {
  const adminHeaders = await bearer(request, admin);
  ids.enterprise = await created(
    await request.post('/api/v1/enterprises', {
      headers: adminHeaders,
      data: {
        name: `Société générale des constructions métalliques ${runId}`,
        description: 'Une entreprise dont le nom et la description sont longs, comme en vrai.',
        ceoFullName: `Jean-Baptiste de La Rochefoucauld ${runId}`,
        ceoEmail: ceo.email,
        ceoPassword: ceo.password,
      },
    }),
  );
  const ceoHeaders = await bearer(request, ceo);
  // Someone invited (no password), with a long name and address: the user list shows their
  // invitation and a button to send it again.
  const invitedResponse = await request.post('/api/v1/users', {
    headers: ceoHeaders,
    data: {
      fullName: `Marie-Clémentine Invitée-Beauregard ${runId}`,
      email: `marie-clementine.invitee-beauregard-${runId}@entreprise-exemple.e2e.test`,
      role: 'DepartmentUser',
      locale: 'fr',
    },
  });
  expect(invitedResponse.status(), await invitedResponse.text()).toBe(201);
  const departments = (await (await request.get(`/api/v1/enterprises/${ids.enterprise}/departments`, { headers: ceoHeaders })).json()) as {
    id: string;
    type: string;
  }[];
  ids.finance = departments.find((department) => department.type === 'finance')!.id;
  const sso = await request.put(`/api/v1/enterprises/${ids.enterprise}/sso`, {
    headers: ceoHeaders,
    data: {
      issuer: OIDC_ISSUER,
      clientId: 'plateforme-de-gestion-des-entreprises',
      clientSecret: 'platform-secret',
      domains: [`constructions-metalliques-${runId}.example`, `filiale-des-constructions-metalliques-${runId}.example`],
      required: true,
      provisioning: 'just_in_time',
      defaultDepartmentId: ids.finance,
    },
  });
  expect(sso.status(), await sso.text()).toBe(200);
  const headId = await created(
    await request.post('/api/v1/users', {
      headers: ceoHeaders,
      data: { fullName: head.name, email: head.email, password: head.password, role: 'DepartmentHead', departmentId: ids.finance },
    }),
  );
  const madeHead = await request.put(`/api/v1/enterprises/${ids.enterprise}/departments/${ids.finance}`, {
    headers: ceoHeaders,
    data: { headId, description: 'Comptabilité, trésorerie et contrôle de gestion' },
  });
  expect(madeHead.status(), await madeHead.text()).toBe(200);
  // Token lists with rows named as long as real ones.
  await created(
    await request.post('/api/v1/api-tokens', {
      headers: ceoHeaders,
      data: { name: `Export nocturne des rapports trimestriels ${runId}`, scopes: ['reports:read', 'dashboards:read', 'users:write'] },
    }),
  );
  await created(
    await request.post(`/api/v1/enterprises/${ids.enterprise}/service-tokens`, {
      headers: ceoHeaders,
      data: { name: `Synchronisation de l’entrepôt de données ${runId}`, scopes: ['reports:write', 'spreadsheets:read', 'monitoring:read'] },
    }),
  );
  // A webhook with a long address and description. It hears only new spreadsheets (none are made
  // here), so nothing is ever sent to its address.
  await created(
    await request.post('/api/v1/webhooks', {
      headers: ceoHeaders,
      data: {
        url: `http://127.0.0.1:9/synchronisation-comptable/evenements-des-rapports-trimestriels/${runId}`,
        events: ['spreadsheet.created'],
        description: 'Synchronisation avec le logiciel de comptabilité et l’entrepôt de données',
      },
    }),
  );

  const headHeaders = await bearer(request, head, '81.2.69.142');
  const report = (title: string, status: 'draft' | 'submitted') => ({
    title,
    content: 'Le chiffre d’affaires a progressé au nord et reculé au sud.',
    periodStart: '2026-01-01',
    periodEnd: '2026-03-31',
    status,
    data: {
      columns: ['Région', 'Chiffre d’affaires', 'Charges d’exploitation'],
      rows: [
        ['Nord', 120, 80],
        ['Sud', 80, 95],
      ],
    },
  });
  const post = (title: string, status: 'draft' | 'submitted') =>
    request.post(`/api/v1/departments/${ids.finance}/reports`, { headers: headHeaders, data: report(title, status) });
  ids.submitted = await created(await post(`Rapport trimestriel soumis ${runId}`, 'submitted'));
  ids.draft = await created(await post(`Brouillon du rapport trimestriel ${runId}`, 'draft'));
  ids.rejected = await created(await post(`Rapport trimestriel refusé ${runId}`, 'submitted'));
  const rejected = await request.post(`/api/v1/reports/${ids.rejected}/review`, {
    headers: ceoHeaders,
    data: { status: 'rejected', reviewNotes: 'Les charges du sud sont à justifier.' },
  });
  expect(rejected.status(), await rejected.text()).toBe(200);
});

async function check(page: Page, paths: string[]) {
  await page.setViewportSize({ width: 800, height: 900 });
  for (const path of paths) {
    await test.step(`${path} at 800 px`, async () => {
      await visit(page, path);
      await settle(page);
      expect(new URL(page.url()).pathname).toBe(new URL(path, page.url()).pathname);
      // Measured again while it finds something: a live refetch's spinner, shown between settling
      // and measuring, draws outside its own box for a moment (a real overflow stays and fails).
      await expect.poll(() => overflowing(page), { message: `${path} at 800 px: content wider than its box`, timeout: 10_000 }).toEqual([]);
    });
  }
}

async function signIn(page: Page, credentials: Credentials) {
  await page.goto('/login');
  await page.getByLabel(new RegExp(`^${text('auth.email')}`)).fill(credentials.email);
  await page.getByLabel(new RegExp(`^${text('auth.password')}`)).fill(credentials.password);
  await page.getByRole('button', { name: text('auth.login.submit') }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

test.describe('French labels fit at 800 px', () => {
  // Each test walks several whole screens (the admin's: eight loads and measures).
  test.describe.configure({ timeout: 60_000 });
  test.beforeEach(async ({ page }) => {
    await page.addInitScript(() => window.localStorage.setItem('locale', 'fr'));
  });

  test('signed-out screens', async ({ page }) => {
    await check(page, [
      '/login',
      '/forgot-password',
      '/reset-password?token=x',
      '/reset-password',
      '/accept-invitation?token=x',
      '/accept-invitation',
      '/sign-in/sso?error=access_denied&state=x',
      '/sign-in/sso?code=x&state=x',
      '/no-such-page',
    ]);
  });

  test("the admin's screens", async ({ page }) => {
    await signIn(page, admin);
    await check(page, [
      '/dashboard',
      '/admin',
      '/admin/enterprises',
      `/admin/enterprises/${ids.enterprise}`,
      `/admin/enterprises/${ids.enterprise}/integrations`,
      '/admin/users',
      '/admin/monitoring',
      '/admin/integrations',
      '/admin/audit',
      `/ceo/reports/${ids.submitted}`,
      '/messages',
      '/settings/api-tokens',
      '/admin/enterprises/create',
    ]);
  });

  test("the CEO's screens", async ({ page }) => {
    await signIn(page, ceo);
    await check(page, [
      '/dashboard',
      '/ceo',
      '/ceo/reports',
      `/ceo/reports/${ids.submitted}`,
      '/admin/users',
      '/ceo/monitoring',
      '/messages',
      '/ceo/integrations',
      '/audit',
      '/settings/api-tokens',
      '/settings/profile',
      '/admin/users/create',
    ]);
  });

  test('at 800 px the reports table fits: its last column is on screen, nothing hidden behind a scroll', async ({ page }) => {
    await page.setViewportSize({ width: 800, height: 900 });
    await signIn(page, ceo);
    for (const path of ['/ceo/reports']) {
      await visit(page, path);
      const table = page.getByRole('table', { name: text('reports.list.caption') });
      await expect(table.getByTestId('report-row').first()).toBeVisible();
      // Seen whole: not cut by the table's scrolling box (the visible part of it, as the browser computes it).
      await expect(table.getByRole('columnheader', { name: text('reports.fields.updatedAt') })).toBeInViewport({ ratio: 1 });
      await expect(table.getByTestId('report-row').first().getByRole('cell').last()).toBeInViewport({ ratio: 1 });
    }
  });

  test("at 800 px the user list is cards: every row's actions on screen, e-mails whole", async ({ page }) => {
    await page.setViewportSize({ width: 800, height: 900 });
    await signIn(page, ceo);
    await page.goto('/admin/users');
    const row = page.getByTestId('user-row').filter({ hasText: head.name });
    const actions = row.getByRole('button', { name: new RegExp(`^Actions pour ${head.name}`) });
    await expect(actions).toBeInViewport({ ratio: 1 });
    // The address is shown whole (it may wrap only after the @ or before a dot).
    const email = row.getByText(head.email);
    await expect(email).toBeVisible();
    await actions.click();
    await expect(page.getByRole('menuitem', { name: text('common.edit') })).toBeVisible();
  });

  test("a department head's screens", async ({ page }) => {
    await signIn(page, head);
    const department = `/department/${ids.finance}`;
    await check(page, [
      '/dashboard',
      department,
      `${department}/reports`,
      `${department}/reports/${ids.submitted}`,
      `${department}/reports/create`,
      `${department}/reports/${ids.draft}/edit`,
      `${department}/reports/${ids.rejected}/edit`,
      '/messages',
    ]);
  });
});
