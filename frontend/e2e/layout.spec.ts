import { expect, test } from '@playwright/test';
import { sidebar, signIn } from './support';

test('the sidebar is open from 1024 px and collapses below', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await expect(sidebar(page)).toBeVisible();
  await expect(sidebar(page).getByRole('link', { name: 'Dashboard' })).toBeInViewport();

  await page.setViewportSize({ width: 800, height: 800 });
  await expect(sidebar(page)).toBeHidden();

  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(sidebar(page)).toBeVisible();
  await expect(sidebar(page).getByRole('link', { name: 'Dashboard' })).toBeInViewport();
});

test('below 1024 px the burger opens and closes the sidebar', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 800 });
  await signIn(page);
  await expect(sidebar(page)).toBeHidden();

  const burger = page.getByRole('button', { name: 'Toggle navigation' });
  await burger.click();
  await expect(sidebar(page)).toBeVisible();
  await expect(burger).toHaveAttribute('aria-expanded', 'true');

  // Following a link closes it again.
  await sidebar(page).getByRole('link', { name: 'Dashboard' }).click();
  await expect(sidebar(page)).toBeHidden();
});

test('the sidebar is open at exactly 1024 px', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  await signIn(page);
  await expect(sidebar(page)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Toggle navigation' })).toBeHidden();
});
