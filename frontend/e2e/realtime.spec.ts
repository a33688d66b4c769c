import { type APIRequestContext, expect, test } from '@playwright/test';
import { admin, signIn, socketReady } from './support';

const runId = `${Date.now()}`;
const ceo = { email: `live-ceo-${runId}@e2e.test`, password: 'ceo-password-1' };
const author = { email: `live-author-${runId}@e2e.test`, password: 'author-password-1' };

async function apiToken(request: APIRequestContext, credentials: { email: string; password: string }): Promise<string> {
  const response = await request.post('/api/v1/auth/login', { data: credentials });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

let finance = '';

test.beforeAll(async ({ request }) => {
  const adminToken = await apiToken(request, admin);
  const created = await request.post('/api/v1/enterprises', {
    headers: bearer(adminToken),
    data: { name: `Live ${runId}`, ceoFullName: `Lea Live ${runId}`, ceoEmail: ceo.email, ceoPassword: ceo.password },
  });
  expect(created.status()).toBe(201);
  const enterprise = (await created.json()) as { id: string };
  const ceoToken = await apiToken(request, ceo);
  const departments = (await (await request.get(`/api/v1/enterprises/${enterprise.id}/departments`, { headers: bearer(ceoToken) })).json()) as {
    id: string;
    type: string;
  }[];
  finance = departments.find((d) => d.type === 'finance')!.id;
  const user = await request.post('/api/v1/users', {
    headers: bearer(ceoToken),
    data: { fullName: `Al Author ${runId}`, email: author.email, password: author.password, role: 'DepartmentUser', departmentId: finance },
  });
  expect(user.status()).toBe(201);
});

for (const locale of ['en', 'fr'] as const) {
  test(`a session the CEO ends lands its browser on /login at once, without a reload, saying it was ended (${locale})`, async ({ page, request }) => {
    const ended = {
      en: 'Your session was ended. Please sign in again.',
      fr: 'Votre session a été fermée. Veuillez vous reconnecter.',
    }[locale];
    // The first socket ready before the reload's is awaited: a watcher set up while the first
    // was still opening would take its "ready" for the second's, and the session would then end
    // while the reloaded page was still connecting and loading.
    const first = socketReady(page);
    await signIn(page, author);
    await first;
    // The app in this language, its socket ready again after the reload, its screen loaded.
    const ready = socketReady(page);
    await page.evaluate((value) => window.localStorage.setItem('locale', value), locale);
    await page.reload();
    await ready;
    await page.waitForLoadState('networkidle');
    const ceoToken = await apiToken(request, ceo);
    const sessions = (await (
      await request.get(`/api/v1/monitoring/sessions?active=true&q=${encodeURIComponent(author.email)}`, { headers: bearer(ceoToken) })
    ).json()) as {
      items: { id: string }[];
    };
    expect(sessions.items).toHaveLength(1);
    const logout = await request.post(`/api/v1/monitoring/sessions/${sessions.items[0]!.id}/logout`, { headers: bearer(ceoToken) });
    expect(logout.status()).toBe(204);

    await expect(page).toHaveURL(/\/login$/, { timeout: 3000 });
    await expect(page.getByText(ended)).toBeVisible();
    await page.evaluate(() => window.localStorage.removeItem('locale'));
  });
}

test('the author sees a live toast when the CEO approves their report', async ({ page, request }) => {
  const ready = socketReady(page);
  await signIn(page, author);
  await ready;
  const authorToken = await apiToken(request, author);
  const created = await request.post(`/api/v1/departments/${finance}/reports`, {
    headers: bearer(authorToken),
    data: { title: `Q-live ${runId}`, content: 'Figures', periodStart: '2026-01-01', periodEnd: '2026-03-31', status: 'submitted' },
  });
  expect(created.status()).toBe(201);
  const report = (await created.json()) as { id: string };
  const ceoToken = await apiToken(request, ceo);
  const reviewed = await request.post(`/api/v1/reports/${report.id}/review`, { headers: bearer(ceoToken), data: { status: 'approved' } });
  expect(reviewed.status()).toBe(200);

  await expect(page.getByText(`Report “Q-live ${runId}” is now Approved`)).toBeVisible({ timeout: 5000 });
  await expect(page).toHaveURL(/\/dashboard$/);
});
