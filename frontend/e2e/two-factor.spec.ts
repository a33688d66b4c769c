import { type APIRequestContext, type Browser, type Page, expect, test } from '@playwright/test';
import { generateSync } from 'otplib';
import { admin, apiToken, bearer, createEnterprise, departmentId, expectSignedIn, signIn, signOut } from './support';

/**
 * Two-step sign-in against the real server: an authenticator set up from the profile, sign-ins
 * with its codes and with recovery codes, turning it off; a CEO's policy that makes a person set
 * one up right after the password; the CEO resetting it; the sign-in method on the monitoring
 * screen. The codes come from otplib, an implementation of RFC 6238 of its own, fed the secret
 * the screen shows: what a phone's authenticator app would do.
 */

const STEP = 30;
/** The current TOTP time step (RFC 6238: 30-second steps since the epoch). */
const stepNow = () => Math.floor(Date.now() / 1000 / STEP);
const codeAt = (secret: string, step: number) => generateSync({ secret, epoch: step * STEP });

/**
 * A code of a time step later than `used` (a step's code works once: the server refuses it again).
 * The server takes one step of clock drift either way, so when the current step is used the next
 * step's code is given at once, as an authenticator whose clock runs a little ahead gives it; only
 * when that one is used too does this wait for the next step, as a person waits for the app's next code.
 */
async function freshCode(secret: string, used: number): Promise<{ code: string; step: number }> {
  let step = stepNow();
  if (step > used) return { code: codeAt(secret, step), step };
  if (used === step) return { code: codeAt(secret, step + 1), step: step + 1 };
  await new Promise((resolve) => setTimeout(resolve, used * STEP * 1000 - Date.now() + 300));
  step = stepNow();
  return { code: codeAt(secret, step + 1), step: step + 1 };
}

type Person = { fullName: string; email: string; password: string };

const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

/** The admin makes an enterprise (its CEO with a password) and a department user in its Finance department. */
async function enterpriseWithStaff(request: APIRequestContext, name: string, ceo: Person, staff: Person[]) {
  const adminToken = await apiToken(request, admin);
  const enterpriseId = await createEnterprise(request, adminToken, name, ceo);
  const ceoToken = await apiToken(request, ceo);
  const finance = await departmentId(request, ceoToken, enterpriseId, 'finance');
  for (const person of staff) {
    const response = await request.post('/api/v1/users', {
      headers: bearer(adminToken),
      data: { fullName: person.fullName, email: person.email, password: person.password, role: 'DepartmentUser', enterpriseId, departmentId: finance },
    });
    expect(response.status(), await response.text()).toBe(201);
  }
  return enterpriseId;
}

/** A browser of the person's own (storage apart), in French when asked. */
async function newPerson(browser: Browser, locale?: 'fr') {
  const context = await browser.newContext(locale ? { locale: 'fr-FR' } : {});
  if (locale) await context.addInitScript(() => window.localStorage.setItem('locale', 'fr'));
  return context.newPage();
}

/** The password step of the sign-in form (in English or French). */
async function submitPassword(page: Page, person: Person, locale: 'en' | 'fr' = 'en') {
  await page.goto('/login');
  await page.getByLabel(locale === 'fr' ? /^E-mail/ : /^Email/).fill(person.email);
  await page.getByLabel(locale === 'fr' ? /^Mot de passe/ : /^Password/).fill(person.password);
  await page.getByRole('button', { name: locale === 'fr' ? 'Se connecter' : 'Sign in' }).click();
}

/** The secret as the screen shows it (in groups of four), ready for an authenticator. */
async function secretShown(page: Page) {
  const text = await page.getByTestId('totp-secret').textContent();
  const secret = (text ?? '').replace(/\s+/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  return secret;
}

/** The groups of four of the key on screen that a line break cuts in two (none, said the issue). */
async function groupsCut(page: Page): Promise<string[]> {
  return page.getByTestId('totp-secret').evaluate((code) => {
    const text = code.textContent ?? '';
    const cut: string[] = [];
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    const nodes: { node: Text; start: number }[] = [];
    let offset = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      nodes.push({ node: node as Text, start: offset });
      offset += node.textContent?.length ?? 0;
    }
    const at = (index: number) => {
      const found = [...nodes].reverse().find((n) => n.start <= index)!;
      return { node: found.node, offset: index - found.start };
    };
    for (const match of text.matchAll(/\S+/g)) {
      const range = document.createRange();
      const [start, end] = [at(match.index), at(match.index + match[0].length - 1)];
      range.setStart(start.node, start.offset);
      range.setEnd(end.node, end.offset + 1);
      const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
      if (tops.size > 1) cut.push(match[0]);
    }
    return cut;
  });
}

for (const locale of ['en', 'fr'] as const) {
  test(`on a narrow screen the authenticator key wraps between its groups of four, never inside one (${locale})`, async ({ browser, request }) => {
    const ceo = { fullName: `Nia Narrow ${locale} ${runId}`, email: `2fa-narrow-ceo-${locale}-${runId}@e2e.test`, password: 'nia-narrow-1' };
    const person = { fullName: `Ned Narrow ${locale} ${runId}`, email: `2fa-narrow-${locale}-${runId}@e2e.test`, password: 'ned-narrow-1' };
    await enterpriseWithStaff(request, `Narrow ${locale} ${runId}`, ceo, [person]);
    const page = await browser.newPage({ viewport: { width: 340, height: 800 } });
    if (locale === 'fr') await page.addInitScript(() => window.localStorage.setItem('locale', 'fr'));
    await submitPassword(page, person, locale);
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/settings/profile');
    const title = locale === 'fr' ? "Configurer une application d'authentification" : 'Set up an authenticator app';
    await page
      .getByRole('region', { name: locale === 'fr' ? 'Connexion en deux étapes' : 'Two-step sign-in' })
      .getByRole('button', { name: title })
      .click();
    await expect(page.getByRole('dialog', { name: title }).getByTestId('totp-secret')).toBeVisible();
    await secretShown(page);
    const lines = await page
      .getByTestId('totp-secret')
      .evaluate((code) => Math.round(code.getBoundingClientRect().height / parseFloat(getComputedStyle(code).lineHeight)));
    expect(lines, 'the key needs more than one line at this width, or the test proves nothing').toBeGreaterThan(1);
    const overflow = await page.getByTestId('totp-secret').evaluate((code) => code.scrollWidth - code.clientWidth);
    expect(overflow, 'the key wraps; it does not run out of its box').toBeLessThanOrEqual(0);
    expect(await groupsCut(page)).toEqual([]);
    await page.close();
  });
}

test.describe('two-step sign-in', () => {
  test('set up from the profile, used to sign in with app codes and a recovery code, then turned off', async ({ page, request }) => {
    const ceo = { fullName: `Cora Two-Step ${runId}`, email: `2fa-ceo-${runId}@e2e.test`, password: 'cora-two-step-1' };
    const person = { fullName: `Tom Totp ${runId}`, email: `2fa-tom-${runId}@e2e.test`, password: 'tom-two-step-1' };
    await enterpriseWithStaff(request, `Two-step Ltd ${runId}`, ceo, [person]);

    let secret = '';
    let usedStep = 0;
    let recoveryCodes: string[] = [];

    await test.step('the person sets up an authenticator from their profile, and keeps the recovery codes', async () => {
      await signIn(page, person);
      await page.goto('/settings/profile');
      const section = page.getByRole('region', { name: 'Two-step sign-in' });
      await expect(section.getByTestId('two-step-status')).toHaveText('Off');
      await section.getByRole('button', { name: 'Set up an authenticator app' }).click();
      const dialog = page.getByRole('dialog', { name: 'Set up an authenticator app' });
      await expect(dialog.getByRole('img', { name: 'QR code to scan with your authenticator app' })).toBeVisible();
      secret = await secretShown(page);

      // A wrong code first: said so, nothing turned on.
      const wrong = codeAt(secret, stepNow() + 10);
      await dialog.getByRole('textbox', { name: /^Authentication code/ }).fill(wrong);
      await dialog.getByRole('button', { name: 'Turn on' }).click();
      await expect(dialog.getByText('This code is not correct. Check your app and try the current code.')).toBeVisible();

      usedStep = stepNow();
      await dialog.getByRole('textbox', { name: /^Authentication code/ }).fill(codeAt(secret, usedStep));
      await dialog.getByRole('button', { name: 'Turn on' }).click();
      const codes = page.getByRole('dialog', { name: 'Save your recovery codes' });
      await expect(codes.getByTestId('recovery-code')).toHaveCount(10);
      recoveryCodes = (await codes.getByTestId('recovery-code').allTextContents()).map((code) => code.trim());
      expect(new Set(recoveryCodes).size).toBe(10);
      await expect(codes.getByRole('button', { name: 'Done' })).toBeDisabled();
      // Nothing lies over the codes: the confirmation waits until they are put away.
      await expect(page.locator('.mantine-Notification-root')).toHaveCount(0);
      await codes.getByRole('checkbox', { name: 'I have saved these recovery codes' }).check();
      await codes.getByRole('button', { name: 'Done' }).click();
      await expect(codes).toBeHidden();
      await expect(page.locator('.mantine-Notification-root').filter({ hasText: 'Two-step sign-in is on' })).toBeVisible();
      await expect(section.getByTestId('two-step-status')).toHaveText('On');
      await expect(section.getByTestId('recovery-codes-left')).toHaveText('10 recovery codes left.');
      await signOut(page, person);
    });

    await test.step('a sign-in asks for a code after the password: a used code is refused, the next one lets them in', async () => {
      await submitPassword(page, person);
      const input = page.getByRole('textbox', { name: /^Authentication code/ });
      await expect(input).toBeFocused();
      await expect(input).toHaveAttribute('autocomplete', 'one-time-code');
      await expect(input).toHaveAttribute('inputmode', 'numeric');
      await input.fill(codeAt(secret, usedStep));
      await page.getByRole('button', { name: 'Verify' }).click();
      await expect(page.getByText('This code is not correct. Check your app and try the current code.')).toBeVisible();
      await expect(page).toHaveURL(/\/login$/);

      const fresh = await freshCode(secret, usedStep);
      usedStep = fresh.step;
      await input.fill(fresh.code);
      await page.getByRole('button', { name: 'Verify' }).click();
      await expectSignedIn(page, person);
      await signOut(page, person);
    });

    await test.step('a recovery code lets them in once', async () => {
      await submitPassword(page, person);
      await page.getByRole('button', { name: 'Use a recovery code' }).click();
      await page.getByRole('textbox', { name: /^Recovery code/ }).fill(recoveryCodes[0]);
      await page.getByRole('button', { name: 'Verify' }).click();
      await expectSignedIn(page, person);

      // Their own sessions say how this one was opened.
      await page.getByRole('button', { name: new RegExp(`^Account menu for ${person.fullName}`) }).click();
      await page.getByRole('menuitem', { name: 'Your sessions' }).click();
      const sessions = page.getByRole('dialog', { name: 'Your sessions' });
      await expect(sessions.getByTestId('your-session').filter({ has: page.getByTestId('current-session') })).toContainText('Password + recovery code');
      await page.keyboard.press('Escape');

      await page.goto('/settings/profile');
      await expect(page.getByTestId('recovery-codes-left')).toHaveText('9 recovery codes left.');
      await signOut(page, person);

      await submitPassword(page, person);
      await page.getByRole('button', { name: 'Use a recovery code' }).click();
      await page.getByRole('textbox', { name: /^Recovery code/ }).fill(recoveryCodes[0]);
      await page.getByRole('button', { name: 'Verify' }).click();
      await expect(page.getByText('This recovery code is not correct, or it was already used.')).toBeVisible();
      await page.getByRole('textbox', { name: /^Recovery code/ }).fill(recoveryCodes[1]);
      await page.getByRole('button', { name: 'Verify' }).click();
      await expectSignedIn(page, person);
    });

    await test.step('the CEO sees how each session was opened', async () => {
      const ceoPage = await newPerson(page.context().browser()!);
      await signIn(ceoPage, ceo);
      await ceoPage.goto(`/ceo/monitoring?show=all&q=${encodeURIComponent(person.fullName)}`);
      const rows = ceoPage.getByTestId('session-row').filter({ hasText: person.fullName });
      await expect(rows.filter({ hasText: 'Password + recovery code' })).toHaveCount(2);
      await expect(rows.filter({ hasText: 'Password + app code' })).toHaveCount(1);
      await expect(rows.filter({ has: ceoPage.getByTestId('sign-in-method').getByText('Password', { exact: true }) })).toHaveCount(1);
      await ceoPage.context().close();
    });

    await test.step('they turn it off with their password, after a warning; the next sign-in asks for the password only', async () => {
      await page.goto('/settings/profile');
      const section = page.getByRole('region', { name: 'Two-step sign-in' });
      await expect(section.getByTestId('recovery-codes-left')).toHaveText('8 recovery codes left.');
      await section.getByRole('button', { name: 'Turn off' }).click();
      const dialog = page.getByRole('dialog', { name: 'Turn off two-step sign-in?' });
      await expect(dialog).toContainText('Sign-ins will ask for your password only');
      await dialog.locator('label', { hasText: 'My password' }).click();
      await dialog.getByLabel(/^Current password/).fill('not-my-password');
      await dialog.getByRole('button', { name: 'Turn off' }).click();
      await expect(dialog.getByText('This password is not correct.')).toBeVisible();
      await dialog.getByLabel(/^Current password/).fill(person.password);
      await dialog.getByRole('button', { name: 'Turn off' }).click();
      await expect(page.getByText('Two-step sign-in is off')).toBeVisible();
      await expect(section.getByTestId('two-step-status')).toHaveText('Off');
      await signOut(page, person);
      const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/auth/login'));
      await submitPassword(page, person);
      expect(await (await answer).json()).toHaveProperty('token');
      await expectSignedIn(page, person);
    });
  });

  test('a policy makes a person set it up right after the password; the CEO resets it (in French)', async ({ browser, request }) => {
    const ceo = { fullName: `Claire Politique ${runId}`, email: `2fa-policy-ceo-${runId}@e2e.test`, password: 'claire-politique-1' };
    const person = { fullName: `Noé Obligé ${runId}`, email: `2fa-noe-${runId}@e2e.test`, password: 'noe-oblige-1' };
    await enterpriseWithStaff(request, `Politique et Fils ${runId}`, ceo, [person]);
    const ceoPage = await newPerson(browser, 'fr');
    const personPage = await newPerson(browser, 'fr');

    await test.step('the CEO requires two-step sign-in for the department staff', async () => {
      await submitPassword(ceoPage, ceo, 'fr');
      await expect(ceoPage).toHaveURL(/\/dashboard$/);
      await ceoPage.goto('/ceo');
      const card = ceoPage.getByRole('region', { name: 'Sécurité' });
      await expect(card.getByRole('radio', { name: /^Suivre la règle par défaut de la plateforme/ })).toBeChecked();
      await card.getByRole('radio', { name: 'Utiliser une règle propre à cette entreprise' }).check();
      await card.getByRole('checkbox', { name: 'Personnel des départements' }).check();
      await card.getByRole('button', { name: 'Enregistrer' }).click();
      await expect(ceoPage.getByText('Paramètres de sécurité enregistrés')).toBeVisible();
      await ceoPage.reload();
      await expect(card.getByRole('checkbox', { name: 'Personnel des départements' })).toBeChecked();
    });

    let secret = '';
    await test.step('the person is guided through setting up an authenticator right after the password, and lands in the app', async () => {
      await submitPassword(personPage, person, 'fr');
      await expect(personPage.getByRole('heading', { name: 'Activer la connexion en deux étapes' })).toBeVisible();
      await expect(personPage.getByRole('img', { name: "Code QR à scanner avec votre application d'authentification" })).toBeVisible();
      secret = await secretShown(personPage);
      await personPage.getByRole('textbox', { name: /^Code d'authentification/ }).fill(codeAt(secret, stepNow()));
      await personPage.getByRole('button', { name: 'Activer et se connecter' }).click();
      await expect(personPage.getByRole('heading', { name: 'Enregistrez vos codes de secours' })).toBeVisible();
      await expect(personPage.getByTestId('recovery-code')).toHaveCount(10);
      // Downloaded as a text file.
      const download = personPage.waitForEvent('download');
      await personPage.getByRole('button', { name: 'Télécharger (.txt)' }).click();
      expect((await download).suggestedFilename()).toBe('recovery-codes.txt');
      await personPage.getByRole('checkbox', { name: "J'ai enregistré ces codes de secours" }).check();
      await personPage.getByRole('button', { name: 'Continuer' }).click();
      await expect(personPage).toHaveURL(/\/dashboard$/);
      await personPage.goto('/settings/profile');
      const section = personPage.getByRole('region', { name: 'Connexion en deux étapes' });
      await expect(section.getByTestId('two-step-status')).toHaveText('Activée');
      await expect(section.getByTestId('two-step-required')).toContainText('Votre organisation exige la connexion en deux étapes pour votre rôle');
    });

    await test.step('the CEO sees the person with two steps, and resets it after a confirmation: their session ends', async () => {
      await ceoPage.goto(`/admin/users?q=${encodeURIComponent(person.fullName)}`);
      const row = ceoPage.getByTestId('user-row').filter({ hasText: person.fullName });
      await expect(row.getByTestId('mfa-badge')).toHaveText('2 étapes');
      await row.getByRole('button', { name: new RegExp(`^Actions pour ${person.fullName}`) }).click();
      await ceoPage.getByRole('menuitem', { name: 'Réinitialiser la connexion en deux étapes' }).click();
      const dialog = ceoPage.getByRole('dialog', { name: 'Réinitialiser la connexion en deux étapes ?' });
      await expect(dialog).toContainText(person.fullName);
      await expect(dialog).toContainText('Ses sessions se terminent maintenant.');
      await dialog.getByRole('button', { name: 'Réinitialiser' }).click();
      await expect(ceoPage.getByText(`La connexion en deux étapes de ${person.fullName} a été réinitialisée`)).toBeVisible();
      await expect(row.getByTestId('mfa-badge')).toHaveCount(0);

      await personPage.reload();
      await expect(personPage).toHaveURL(/\/login$/);
    });

    await test.step('the monitoring screen shows how the person signed in', async () => {
      await ceoPage.goto(`/ceo/monitoring?show=all&q=${encodeURIComponent(person.fullName)}`);
      await expect(ceoPage.getByTestId('session-row').filter({ hasText: person.fullName }).getByTestId('sign-in-method')).toHaveText(
        "Mot de passe + code d'application",
      );
    });

    await test.step('their next sign-in asks them to set up an authenticator again', async () => {
      await submitPassword(personPage, person, 'fr');
      await expect(personPage.getByRole('heading', { name: 'Activer la connexion en deux étapes' })).toBeVisible();
      const next = await secretShown(personPage);
      expect(next).not.toBe(secret);
      await personPage.getByRole('button', { name: 'Retour : se reconnecter' }).click();
      await expect(personPage.getByRole('button', { name: 'Se connecter' })).toBeVisible();
    });

    await ceoPage.context().close();
    await personPage.context().close();
  });
});
