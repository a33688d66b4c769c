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

test('resized to exactly 1024 px, the sidebar is forced open; at 1023 px it collapses and the burger toggles it', async ({ page }) => {
  const burger = page.getByRole('button', { name: 'Toggle navigation' });
  await page.setViewportSize({ width: 800, height: 768 });
  await signIn(page);
  await expect(sidebar(page)).toBeHidden();

  // Growing to exactly 1024 px opens it, with no burger to close it.
  await page.setViewportSize({ width: 1024, height: 768 });
  await expect(sidebar(page)).toBeVisible();
  await expect(sidebar(page).getByRole('link', { name: 'Dashboard' })).toBeInViewport();
  await expect(burger).toBeHidden();

  // One pixel less, it is a drawer again: closed, and the burger opens and closes it.
  await page.setViewportSize({ width: 1023, height: 768 });
  await expect(sidebar(page)).toBeHidden();
  await expect(burger).toBeVisible();
  await burger.click();
  await expect(sidebar(page)).toBeVisible();
  await expect(sidebar(page).getByRole('link', { name: 'Dashboard' })).toBeInViewport();
  await expect(burger).toHaveAttribute('aria-expanded', 'true');
  await burger.click();
  await expect(sidebar(page)).toBeHidden();
  await expect(burger).toHaveAttribute('aria-expanded', 'false');

  // Opened as a drawer, then widened to 1024 px: open, and it stays open.
  await burger.click();
  await page.setViewportSize({ width: 1024, height: 768 });
  await expect(sidebar(page)).toBeVisible();
  await expect(burger).toBeHidden();
});
