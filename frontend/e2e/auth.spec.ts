import { expect, test } from '@playwright/test';
import { admin, signIn } from './support';

test('the admin signs in and reaches the dashboard with their name', async ({ page }) => {
  const fullName = await signIn(page);

  await expect(page.getByRole('heading', { level: 1, name: `Welcome, ${fullName}` })).toBeVisible();
  await expect(page.getByRole('button', { name: `Account menu for ${fullName}` })).toBeVisible();
  // Without "remember me" the sign-in lives in this browser session only.
  expect(await page.evaluate(() => sessionStorage.getItem('token'))).toBeTruthy();
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
});

test('"remember me" keeps the sign-in across tabs and browser restarts', async ({ page, context, browser }) => {
  await page.goto('/login');
  await page.getByLabel(/^Email/).fill(admin.email);
  await page.getByLabel(/^Password/).fill(admin.password);
  await page.getByRole('checkbox', { name: 'Remember me' }).check();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeTruthy();
  expect(await page.evaluate(() => sessionStorage.getItem('token'))).toBeNull();

  const second = await context.newPage();
  await second.goto('/dashboard');
  await expect(second.getByRole('heading', { level: 1, name: /^Welcome, / })).toBeVisible();
  await second.close();

  // A restart: the browser keeps what is stored on disk (cookies, local storage) and nothing of
  // its pages or their session storage; a new context is given exactly that.
  const stored = await context.storageState();
  await context.close();
  const restarted = await browser.newContext({ storageState: stored, baseURL: test.info().project.use.baseURL });
  try {
    const again = await restarted.newPage();
    await again.goto('/dashboard');
    await expect(again.getByRole('heading', { level: 1, name: /^Welcome, / })).toBeVisible();
  } finally {
    await restarted.close();
  }
});

test('a wrong password shows "Invalid email or password"', async ({ page }) => {
  await page.goto('/login');
  await expect(page.getByRole('heading', { name: 'Sign in to Enterprise Platform' })).toBeVisible();
  await expect(page.getByText('Enterprise Management Platform')).toBeVisible();

  await page.getByLabel(/^Email/).fill(admin.email);
  await page.getByLabel(/^Password/).fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();

  await expect(page.getByRole('alert')).toHaveText('Invalid email or password');
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => [localStorage.getItem('token'), sessionStorage.getItem('token')])).toEqual([null, null]);
});

test('signing out returns to /login and the dashboard is closed afterwards', async ({ page }) => {
  const fullName = await signIn(page);

  await page.getByRole('button', { name: `Account menu for ${fullName}` }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();

  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  expect(
    await page.evaluate(() => [localStorage.getItem('token'), localStorage.getItem('user'), sessionStorage.getItem('token'), sessionStorage.getItem('user')]),
  ).toEqual([null, null, null, null]);

  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/login$/);
});

test('a token the server has ended sends the user to /login, saying it was ended', async ({ page }) => {
  // No real-time socket: the end must be found by the app's requests alone, not announced first
  // by the socket's session.ended (which, on a loaded machine, can win the race); their 401 says
  // why (a sign-out), as the socket would have.
  await page.routeWebSocket(/\/api\/v1\/ws$/, () => {});
  await signIn(page);
  const token = await page.evaluate(() => sessionStorage.getItem('token'));
  // The tab leaves the app (its sessionStorage stays), so none of the page's own background
  // requests can find the end first; the end is found by the app opened again.
  await page.goto('about:blank');
  const logout = await page.request.post('/api/v1/auth/logout', { headers: { Authorization: `Bearer ${token}` } });
  expect(logout.status()).toBe(204);

  await page.goto('/dashboard');

  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByText('Your session was ended. Please sign in again.')).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.getItem('token'))).toBeNull();
});

test('the forgot-password page asks for the address and leads back', async ({ page }) => {
  await page.goto('/login');
  await page.getByRole('link', { name: 'Forgot password?' }).click();

  await expect(page).toHaveURL(/\/forgot-password$/);
  await expect(page.getByText('Enter the email address of your account: we will send you a link to choose a new password.')).toBeVisible();
  await page.getByRole('link', { name: 'Back to sign in' }).click();
  await expect(page).toHaveURL(/\/login$/);
});
