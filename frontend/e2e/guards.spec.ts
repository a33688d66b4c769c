import { expect, test } from '@playwright/test';
import { signIn } from './support';

test('an unauthenticated visit to /dashboard goes to /login', async ({ page }) => {
  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
});

test('/ leads to the dashboard once signed in', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/login$/);
  await signIn(page);
  await page.goto('/');
  await expect(page).toHaveURL(/\/dashboard$/);
});

test('a signed-in user on /login goes to /dashboard', async ({ page }) => {
  await signIn(page);
  await page.goto('/login');
  await expect(page).toHaveURL(/\/dashboard$/);
});

test('an unknown path shows the not-found screen, signed out, in the sign-in frame with its language switch and the way to sign in', async ({ page }) => {
  await page.goto('/no/such/page');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await expect(page.getByRole('button', { name: /language|langue/i }).first()).toBeVisible();

  await page.getByRole('link', { name: 'Go to the sign-in page' }).click();
  await expect(page).toHaveURL(/\/login$/);
});
