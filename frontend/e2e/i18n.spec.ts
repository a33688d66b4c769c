import { expect, test } from '@playwright/test';
import { admin, apiToken, bearer, signIn } from './support';

test('switching to French survives a reload', async ({ page }) => {
  await page.goto('/login');
  await page.getByRole('button', { name: 'Language: English' }).click();
  await page.getByRole('menuitem', { name: 'Français' }).click();

  await expect(page.getByRole('heading', { name: 'Se connecter à Enterprise Platform' })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('locale'))).toBe('fr');

  await page.reload();

  await expect(page.getByRole('heading', { name: 'Se connecter à Enterprise Platform' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  expect(await page.evaluate(() => localStorage.getItem('locale'))).toBe('fr');
});

test('a failed sign-in is explained in French', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('locale', 'fr'));
  await page.goto('/login');
  await page.getByLabel(/^E-mail/).fill(process.env.E2E_ADMIN_EMAIL ?? 'admin@e2e.test');
  await page.getByLabel(/^Mot de passe/).fill('wrong-password');
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page.getByRole('alert')).toHaveText('E-mail ou mot de passe invalide');
});

test('the signed-in screens switch language too, role names included, and the account keeps the choice', async ({ page, browser, request }) => {
  // An administrator of this test's own: the choice is kept on the account, which the suite's
  // shared admin must not get (the next browser it signs in from would open in French).
  const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
  const polyglot = { email: `polyglot-${runId}@e2e.test`, password: 'polyglot-password-1' };
  const made = await request.post('/api/v1/users', {
    headers: bearer(await apiToken(request, admin)),
    data: { fullName: `Paula Polyglot ${runId}`, email: polyglot.email, password: polyglot.password, role: 'PlatformAdmin' },
  });
  expect(made.status(), await made.text()).toBe(201);

  await signIn(page, polyglot);
  const saved = page.waitForResponse((r) => r.url().endsWith('/api/v1/auth/me') && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Language: English' }).click();
  await page.getByRole('menuitem', { name: 'Français' }).click();

  await expect(page.getByRole('heading', { level: 1, name: /^Bienvenue, / })).toBeVisible();
  await expect(page.getByText('Vous êtes connecté en tant que Administrateur de la plateforme.')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Navigation principale' }).getByRole('link', { name: 'Tableau de bord' })).toBeVisible();
  expect((await saved).status()).toBe(200);

  // A browser where no language was chosen yet opens in the account's, once signed in.
  const elsewhere = await (await browser.newContext()).newPage();
  await signIn(elsewhere, polyglot);
  await expect(elsewhere.getByRole('heading', { level: 1, name: 'Bienvenue, Paula Polyglot ' + runId })).toBeVisible();
  expect(await elsewhere.evaluate(() => localStorage.getItem('locale'))).toBe('fr');
  await elsewhere.context().close();
});
