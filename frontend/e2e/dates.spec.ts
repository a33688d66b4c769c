import { type Locator, type Page, expect, test } from '@playwright/test';
import { admin, apiToken, createEnterprise, createStaff, departmentId } from './support';

/**
 * The date fields of the report form and of the spreadsheet's "Use in a report" dialog, as a
 * person uses them: the calendar gets out of the way once a day is picked (the buttons under it
 * can be clicked), Escape in the dialog closes the calendar and not the dialog, and a day that
 * does not exist is kept as typed with a message, in the interface language, instead of vanishing.
 */

const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
const ceo = { fullName: `Dana Ceo ${runId}`, email: `dates-ceo-${runId}@e2e.test`, password: 'ceo-password-1' };
const staff = { fullName: `Tim Calendar ${runId}`, email: `dates-user-${runId}@e2e.test`, password: 'user-password-1' };
const ids = { finance: '' };

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ request }) => {
  const adminToken = await apiToken(request, admin);
  const enterprise = await createEnterprise(request, adminToken, `Dates ${runId}`, ceo);
  const ceoToken = await apiToken(request, ceo);
  ids.finance = await departmentId(request, ceoToken, enterprise, 'finance');
  await createStaff(request, ceoToken, staff, ids.finance);
});

const TEXTS = {
  en: { email: 'Email', password: 'Password', signIn: 'Sign in', title: 'Title', content: 'Content', start: 'Period start', end: 'Period end' },
  fr: {
    email: 'E-mail',
    password: 'Mot de passe',
    signIn: 'Se connecter',
    title: 'Titre',
    content: 'Contenu',
    start: 'Début de période',
    end: 'Fin de période',
  },
};

async function signIn(page: Page, locale: 'en' | 'fr') {
  const T = TEXTS[locale];
  await page.addInitScript((value) => window.localStorage.setItem('locale', value), locale);
  await page.goto('/login');
  await page.getByLabel(new RegExp(`^${T.email}`)).fill(staff.email);
  await page.getByLabel(new RegExp(`^${T.password}`)).fill(staff.password);
  await page.getByRole('button', { name: T.signIn }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** The open calendar (Mantine's dates dropdown). */
const calendar = (page: Page) => page.locator('[data-dates-dropdown]');

/** The element a person's click at the middle of `target` lands on is `target` (or inside it). */
async function expectUncovered(target: Locator) {
  await target.scrollIntoViewIfNeeded();
  const box = (await target.boundingBox())!;
  const hit = await target.evaluate(
    (element, point) => {
      const top = document.elementFromPoint(point.x, point.y);
      return top !== null && (element === top || element.contains(top));
    },
    { x: box.x + box.width / 2, y: box.y + box.height / 2 },
  );
  expect(hit, 'the button is under something else').toBe(true);
}

test('report form: the calendar closes once a day is picked or typed, and "Save as Draft" stays clickable', async ({ page }) => {
  // Tall enough for the whole form to show at once: the calendar opens down, towards the buttons.
  await page.setViewportSize({ width: 1280, height: 1000 });
  await signIn(page, 'en');
  await page.goto(`/department/${ids.finance}/reports/create`);
  await page.getByLabel(/^Title/).fill(`Picked dates ${runId}`);
  await page.getByLabel(/^Content/).fill('Dates picked from the calendar.');

  // Picked in the calendar.
  await page.getByLabel(/^Period start/).click();
  await expect(calendar(page)).toBeVisible();
  await calendar(page).getByRole('button', { name: /^10 / }).first().click();
  await expect(calendar(page)).toBeHidden();
  await expect(page.getByLabel(/^Period start/)).toHaveValue(/^\d\d\/10\/\d{4}$/);

  // Typed whole: the calendar that opened with the typing gives way.
  const end = page.getByLabel(/^Period end/);
  await end.click();
  await expect(calendar(page)).toBeVisible();
  await end.pressSequentially('12/31/2099');
  await expect(calendar(page)).toBeHidden();
  await expect(end).toBeFocused();

  const saveDraft = page.getByRole('button', { name: 'Save as Draft' });
  await expect(saveDraft).toBeVisible();
  await expectUncovered(saveDraft);
  await expectUncovered(page.getByRole('button', { name: 'Submit Report' }));
  await saveDraft.click({ timeout: 5_000 });
  await expect(page).toHaveURL(new RegExp(`/department/${ids.finance}/reports/[0-9a-f-]{36}$`));
  await expect(page.getByRole('heading', { level: 1, name: `Picked dates ${runId}` })).toBeVisible();
});

test('report form: Tab and Escape close the calendar', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 1000 });
  await signIn(page, 'en');
  await page.goto(`/department/${ids.finance}/reports/create`);
  const shown = page.locator('[data-dates-dropdown]:visible');
  await page.getByLabel(/^Period start/).click();
  await expect(shown).toHaveCount(1);
  // Tab: the start's calendar closes, the end's opens (one calendar, never two).
  await page.keyboard.press('Tab');
  await expect(page.getByLabel(/^Period end/)).toBeFocused();
  await expect(shown).toHaveCount(1);
  await page.keyboard.press('Escape');
  await expect(shown).toHaveCount(0);
  await expect(page.getByLabel(/^Period end/)).toBeFocused();
  await page.keyboard.type('1');
  await expect(shown).toHaveCount(1);
  await page.keyboard.press('Tab');
  await expect(shown).toHaveCount(0);
  await expectUncovered(page.getByRole('button', { name: 'Save as Draft' }));
});

for (const [locale, typed, message] of [
  ['en', '13/45/2026', 'This date does not exist'],
  ['fr', '30/02/2026', "Cette date n'existe pas"],
] as const) {
  test(`report form (${locale}): an impossible date stays as typed, with a message, and is not saved`, async ({ page }) => {
    const T = TEXTS[locale];
    await signIn(page, locale);
    await page.goto(`/department/${ids.finance}/reports/create`);
    await page.getByLabel(new RegExp(`^${T.title}`)).fill(`Impossible ${locale} ${runId}`);
    await page.getByLabel(new RegExp(`^${T.content}`)).fill('A day that does not exist.');
    const start = page.getByLabel(new RegExp(`^${T.start}`));
    await start.pressSequentially(typed);
    await page.keyboard.press('Tab');
    await expect(start).toHaveValue(typed);
    await expect(page.getByText(message, { exact: true })).toBeVisible();
    await expect(start).toHaveAttribute('aria-invalid', 'true');

    // Saving is refused: the page stays, and so do the text and the message.
    await page.getByLabel(new RegExp(`^${T.end}`)).fill(locale === 'fr' ? '31/03/2026' : '03/31/2026');
    await page.keyboard.press('Tab');
    await page.getByRole('button', { name: locale === 'fr' ? 'Enregistrer comme brouillon' : 'Save as Draft' }).click();
    await expect(page).toHaveURL(/\/reports\/create$/);
    await expect(start).toHaveValue(typed);
    await expect(page.getByText(message, { exact: true })).toBeVisible();
  });
}

test('"Use in a report": Escape with the calendar open closes the calendar and keeps the dialog and its title', async ({ page }) => {
  await signIn(page, 'en');
  await page.goto(`/department/${ids.finance}/spreadsheet`);
  await page.getByRole('button', { name: 'New spreadsheet' }).first().click();
  const create = page.getByRole('dialog', { name: 'New spreadsheet' });
  await create.getByLabel(/^Name/).fill('Dated sheet');
  await create.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Dated sheet' })).toBeVisible();
  await expect(page.getByTestId('glide-cell-1-0')).toBeAttached({ timeout: 20_000 });

  await page.getByRole('button', { name: 'Use in a report' }).click();
  const dialog = page.getByRole('dialog', { name: 'Use in a report' });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel(/^Title/).fill(`Typed title ${runId}`);
  await dialog.getByLabel(/^Period start/).click();
  await expect(calendar(page)).toBeVisible();

  await page.keyboard.press('Escape');
  await expect(calendar(page)).toBeHidden();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel(/^Title/)).toHaveValue(`Typed title ${runId}`);
  await expect(dialog.getByLabel(/^Period start/)).toBeFocused();

  // A day picked in the calendar closes it, and the dialog's buttons are there to click.
  await dialog.getByLabel(/^Period end/).click();
  await expect(calendar(page)).toBeVisible();
  await calendar(page).getByRole('button', { name: /^20 / }).first().click();
  await expect(calendar(page)).toBeHidden();
  await expectUncovered(dialog.getByRole('button', { name: 'Create report' }));

  // An impossible day, in the dialog too.
  await dialog.getByLabel(/^Period start/).fill('02/30/2026');
  await page.keyboard.press('Tab');
  await expect(dialog.getByText('This date does not exist', { exact: true })).toBeVisible();
  await expect(dialog.getByLabel(/^Period start/)).toHaveValue('02/30/2026');

  // With the calendar closed, Escape closes the dialog as before.
  await dialog.getByLabel(/^Title/).focus();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});
