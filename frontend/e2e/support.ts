import { type Page, expect } from '@playwright/test';

export const admin = {
  email: process.env.E2E_ADMIN_EMAIL ?? 'admin@e2e.test',
  password: process.env.E2E_ADMIN_PASSWORD ?? 'e2e-admin-password',
};

/** Signs in through the form; returns the full name the server gave the user. */
export async function signIn(page: Page, credentials = admin): Promise<string> {
  await page.goto('/login');
  await page.getByLabel(/^Email/).fill(credentials.email);
  await page.getByLabel(/^Password/).fill(credentials.password);
  const response = page.waitForResponse((r) => r.url().endsWith('/api/v1/auth/login'));
  await page.getByRole('button', { name: 'Sign in' }).click();
  const body = (await (await response).json()) as { user: { fullName: string } };
  await expect(page).toHaveURL(/\/dashboard$/);
  return body.user.fullName;
}

export const sidebar = (page: Page) => page.getByRole('navigation', { name: /Main navigation|Navigation principale/ });
