import { expect, test } from '@playwright/test';
import { signIn } from './support';

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

test('the signed-in screens switch language too, role names included', async ({ page }) => {
  await signIn(page);
  await page.getByRole('button', { name: 'Language: English' }).click();
  await page.getByRole('menuitem', { name: 'Français' }).click();

  await expect(page.getByRole('heading', { level: 1, name: /^Bienvenue, / })).toBeVisible();
  await expect(page.getByText('Vous êtes connecté en tant que Administrateur de la plateforme.')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Navigation principale' }).getByRole('link', { name: 'Tableau de bord' })).toBeVisible();
});
