import { type APIRequestContext, type Page, expect } from '@playwright/test';

export const admin = {
  email: process.env.E2E_ADMIN_EMAIL ?? 'admin@e2e.test',
  password: process.env.E2E_ADMIN_PASSWORD ?? 'e2e-admin-password',
};

/**
 * Signs in through the form; returns the full name the server gave the user. `origin` opens the
 * app at another address of the same server (the passkeys' `localhost`: see e2e/passkeys.spec.ts).
 */
export async function signIn(page: Page, credentials = admin, origin = ''): Promise<string> {
  await page.goto(`${origin}/login`);
  await page.getByLabel(/^Email/).fill(credentials.email);
  await page.getByLabel(/^Password/).fill(credentials.password);
  const response = page.waitForResponse((r) => r.url().endsWith('/api/v1/auth/login'));
  await page.getByRole('button', { name: 'Sign in' }).click();
  const body = (await (await response).json()) as { user: { fullName: string } };
  await expect(page).toHaveURL(/\/dashboard$/);
  return body.user.fullName;
}

/** Signs in through the form with the interface in French (set before the page opens, as a returning French browser has it). */
export async function signInInFrench(page: Page, credentials: { email: string; password: string } = admin): Promise<void> {
  await page.addInitScript(() => window.localStorage.setItem('locale', 'fr'));
  await page.goto('/login');
  await page.getByLabel(/^E-mail/).fill(credentials.email);
  await page.getByLabel(/^Mot de passe/).fill(credentials.password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** Signed in, wherever the app opened (the dashboard, or the page they were on before signing out). */
export async function expectSignedIn(page: Page, person: { fullName: string }) {
  await expect(page.getByRole('button', { name: new RegExp(`^(Account menu for|Menu du compte de) ${person.fullName}`) })).toBeVisible();
  await expect(page).not.toHaveURL(/\/login$/);
}

/** Signs out from the account menu (its item named `label`: "Sign out", or "Se déconnecter" in French). */
export async function signOut(page: Page, person: { fullName: string }, label = 'Sign out') {
  await page.getByRole('button', { name: new RegExp(`^(Account menu for|Menu du compte de) ${person.fullName}`) }).click();
  await page.getByRole('menuitem', { name: label }).click();
  await expect(page).toHaveURL(/\/login$/);
}

export const sidebar = (page: Page) => page.getByRole('navigation', { name: /Main navigation|Navigation principale/ });

export type Credentials = { email: string; password: string };

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/**
 * Signs in through the API and returns the token. `from` is the client address the server is to
 * see (X-Forwarded-For: playwright.config.ts trusts the loopback proxy), so the session gets that
 * address's GeoIP place.
 */
export async function apiToken(request: APIRequestContext, credentials: Credentials, from?: string): Promise<string> {
  const response = await request.post('/api/v1/auth/login', { data: credentials, headers: from ? { 'X-Forwarded-For': from } : {} });
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

/** Creates an enterprise and its CEO (`adminToken`: the platform admin's); returns the enterprise's id. */
export async function createEnterprise(request: APIRequestContext, adminToken: string, name: string, ceo: Credentials & { fullName: string }): Promise<string> {
  const response = await request.post('/api/v1/enterprises', {
    headers: bearer(adminToken),
    data: { name, ceoFullName: ceo.fullName, ceoEmail: ceo.email, ceoPassword: ceo.password },
  });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/**
 * Creates a department user in the enterprise of the CEO whose token this is, in `departmentId`
 * when given; returns the user's id.
 */
export async function createStaff(
  request: APIRequestContext,
  ceoToken: string,
  user: Credentials & { fullName: string },
  departmentId?: string,
): Promise<string> {
  const response = await request.post('/api/v1/users', {
    headers: bearer(ceoToken),
    data: { fullName: user.fullName, email: user.email, password: user.password, role: 'DepartmentUser', departmentId },
  });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** The id of the enterprise's department of this type (`finance`, ...), as its CEO reads it. */
export async function departmentId(request: APIRequestContext, ceoToken: string, enterpriseId: string, type: string): Promise<string> {
  const response = await request.get(`/api/v1/enterprises/${enterpriseId}/departments`, { headers: bearer(ceoToken) });
  expect(response.status(), await response.text()).toBe(200);
  const departments = (await response.json()) as { id: string; type: string }[];
  return departments.find((department) => department.type === type)!.id;
}

/** Resolves when the page's real-time socket has said `ready` (set it up before signing in). */
export function socketReady(page: Page): Promise<void> {
  return new Promise((resolve) => {
    page.on('websocket', (socket) => {
      socket.on('framereceived', (frame) => {
        if (String(frame.payload).includes('"ready"')) resolve();
      });
    });
  });
}
