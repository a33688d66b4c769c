import { type APIRequestContext, type Browser, type CDPSession, type Page, expect, test } from '@playwright/test';
import { admin, apiToken, createEnterprise, createStaff, departmentId, expectSignedIn, signIn, signOut } from './support';

/**
 * Passkeys against the real server, with Chromium's virtual authenticator (CDP `WebAuthn`): one
 * registered from the profile and named, renamed, used to sign in alone and as the second factor
 * after the password, a cancelled prompt, then removed. A passkey's relying party is a domain,
 * never an IP address: the server (PUBLIC_URL http://127.0.0.1:PORT) takes `localhost` at the
 * same port, so these tests open the app at http://localhost:PORT and stay there (the session
 * is kept per origin).
 */

type Person = { fullName: string; email: string; password: string };

const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

/** The app at the passkeys' origin: the same server, named `localhost`. */
const passkeyOrigin = (baseURL: string | undefined) => baseURL!.replace('127.0.0.1', 'localhost');

/** The admin makes an enterprise and its CEO; the CEO adds the person to Finance. */
async function enterpriseWithPerson(request: APIRequestContext, name: string, ceo: Person, person: Person) {
  const enterpriseId = await createEnterprise(request, await apiToken(request, admin), name, ceo);
  const ceoToken = await apiToken(request, ceo);
  await createStaff(request, ceoToken, person, await departmentId(request, ceoToken, enterpriseId, 'finance'));
}

/**
 * A platform authenticator in the page's browser (CTAP2, internal, keeping discoverable
 * credentials, verifying its user: a laptop's fingerprint reader), which answers every prompt.
 */
async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

/** A browser of the person's own (storage apart), in French when asked. */
async function newPerson(browser: Browser, locale?: 'fr') {
  const context = await browser.newContext(locale ? { locale: 'fr-FR' } : {});
  if (locale) await context.addInitScript(() => window.localStorage.setItem('locale', 'fr'));
  return context.newPage();
}

/** The password step of the sign-in form at `origin` (in English or French). */
async function submitPassword(page: Page, origin: string, person: Person, locale: 'en' | 'fr' = 'en') {
  await page.goto(`${origin}/login`);
  await page.getByLabel(locale === 'fr' ? /^E-mail/ : /^Email/).fill(person.email);
  await page.getByLabel(locale === 'fr' ? /^Mot de passe/ : /^Password/).fill(person.password);
  await page.getByRole('button', { name: locale === 'fr' ? 'Se connecter' : 'Sign in', exact: true }).click();
}

/** How the current session was opened, as the person's own session list says. */
async function currentSessionMethod(page: Page, person: Person, locale: 'en' | 'fr' = 'en') {
  await page.getByRole('button', { name: new RegExp(`^(Account menu for|Menu du compte de) ${person.fullName}`) }).click();
  await page.getByRole('menuitem', { name: locale === 'fr' ? 'Vos sessions' : 'Your sessions' }).click();
  const sessions = page.getByRole('dialog', { name: locale === 'fr' ? 'Vos sessions' : 'Your sessions' });
  const current = sessions.getByTestId('your-session').filter({ has: page.getByTestId('current-session') });
  await expect(current).toBeVisible();
  const text = await current.textContent();
  await page.keyboard.press('Escape');
  await expect(sessions).toBeHidden();
  return text ?? '';
}

test.describe('passkeys', () => {
  test('registered from the profile and named, renamed, used alone and after the password, a cancelled prompt said plainly, then removed', async ({
    page,
    request,
    baseURL,
  }) => {
    const app = passkeyOrigin(baseURL);
    const ceo = { fullName: `Pia Passkey CEO ${runId}`, email: `pk-ceo-${runId}@e2e.test`, password: 'pia-passkey-ceo-1' };
    const person = { fullName: `Kim Key ${runId}`, email: `pk-kim-${runId}@e2e.test`, password: 'kim-passkey-1' };
    await enterpriseWithPerson(request, `Passkey Ltd ${runId}`, ceo, person);
    const { cdp, authenticatorId } = await virtualAuthenticator(page);
    const passkeys = page.getByRole('region', { name: 'Passkeys' });

    await test.step('the profile explains passkeys, then registers one under the name given', async () => {
      await signIn(page, person, app);
      await page.goto(`${app}/settings/profile`);
      await expect(passkeys.getByText('No passkeys yet')).toBeVisible();
      await expect(passkeys).toContainText('A passkey is kept by your device or password manager');
      await passkeys.getByRole('button', { name: 'Add a passkey' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add a passkey' });
      // Named after where it is made, unless the person names it.
      await expect(dialog.getByRole('textbox', { name: /^Name/ })).toHaveValue('Chrome on Windows');
      await dialog.getByRole('textbox', { name: /^Name/ }).fill('Work laptop');
      await dialog.getByRole('button', { name: 'Create the passkey' }).click();
      await expect(page.getByText('Passkey “Work laptop” added')).toBeVisible();
      await expect(dialog).toBeHidden();
      const row = passkeys.getByTestId('passkey-row');
      await expect(row).toHaveCount(1);
      await expect(row).toContainText('Work laptop');
      await expect(row).toContainText('Never used');
      // A passkey stands as a second factor.
      await expect(page.getByRole('region', { name: 'Two-step sign-in' }).getByTestId('two-step-status')).toHaveText('On');

      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      expect(credentials).toHaveLength(1);
      expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    });

    await test.step('the same authenticator cannot register a second passkey for the account, and says so', async () => {
      await passkeys.getByRole('button', { name: 'Add a passkey' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add a passkey' });
      await dialog.getByRole('button', { name: 'Create the passkey' }).click();
      await expect(dialog.getByRole('alert')).toHaveText('This device or password manager already holds a passkey for your account.');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(passkeys.getByTestId('passkey-row')).toHaveCount(1);
    });

    await test.step('it is renamed from the keyboard', async () => {
      await passkeys.getByRole('button', { name: 'Rename Work laptop' }).focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Rename the passkey' });
      const name = dialog.getByRole('textbox', { name: /^Name/ });
      await expect(name).toBeFocused();
      await expect(name).toHaveValue('Work laptop');
      await name.fill('Office laptop');
      await name.press('Enter');
      await expect(page.getByText('Passkey renamed')).toBeVisible();
      await expect(passkeys.getByTestId('passkey-name')).toHaveText('Office laptop');
    });

    await test.step('signed out, they sign in with the passkey alone: no e-mail typed', async () => {
      await signOut(page, person);
      await expect(page.getByLabel(/^Email/)).toHaveValue('');
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await expectSignedIn(page, person);
      expect(await currentSessionMethod(page, person)).toContain('Passkey');
      await page.goto(`${app}/settings/profile`);
      await expect(passkeys.getByTestId('passkey-row')).toContainText('Last used');
    });

    await test.step('a password sign-in now asks for a second factor, and the passkey gives it', async () => {
      await signOut(page, person);
      const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/auth/login'));
      await submitPassword(page, app, person);
      expect(await (await answer).json()).toMatchObject({ mfaRequired: true, methods: ['webauthn'] });
      await expect(page.getByRole('heading', { name: 'Two-step sign-in' })).toBeVisible();
      // The only way: the passkey is the main action, and there is no code to type.
      const usePasskey = page.getByRole('button', { name: 'Use a passkey' });
      await expect(usePasskey).toBeFocused();
      await expect(page.getByRole('textbox', { name: /^Authentication code/ })).toHaveCount(0);
      await usePasskey.click();
      await expectSignedIn(page, person);
      expect(await currentSessionMethod(page, person)).toContain('Password + passkey');
    });

    await test.step('a prompt the person does not complete is said plainly, and the page stays usable', async () => {
      await signOut(page, person);
      // The authenticator no longer verifies its user: the browser refuses, as when the person cancels.
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await expect(page.getByRole('alert')).toHaveText('The passkey request was cancelled or timed out. Try again when you are ready.');
      await expect(page).toHaveURL(/\/login$/);
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await expectSignedIn(page, person);
    });

    await test.step('it is removed after a confirmation that names it: the list is empty again', async () => {
      await page.goto(`${app}/settings/profile`);
      await passkeys.getByRole('button', { name: 'Remove Office laptop' }).click();
      const confirm = page.getByRole('dialog', { name: 'Remove this passkey?' });
      await expect(confirm).toContainText('“Office laptop” will no longer sign you in.');
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await expect(passkeys.getByTestId('passkey-row')).toHaveCount(1);
      await passkeys.getByRole('button', { name: 'Remove Office laptop' }).click();
      await confirm.getByRole('button', { name: 'Remove the passkey' }).click();
      await expect(page.getByText('Passkey “Office laptop” removed')).toBeVisible();
      // The toast opens below the header, so the account menu takes a click while it shows.
      await page.getByRole('button', { name: new RegExp(`^Account menu for ${person.fullName}`) }).click({ trial: true, timeout: 2_000 });
      await expect(passkeys.getByText('No passkeys yet')).toBeVisible();
      await expect(passkeys.getByTestId('passkey-row')).toHaveCount(0);
      await expect(page.getByRole('region', { name: 'Two-step sign-in' }).getByTestId('two-step-status')).toHaveText('Off');
    });

    await test.step('the removed passkey no longer signs in', async () => {
      await signOut(page, person);
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      // The removal's toast may still show beside the form's own alert.
      const refused = page.getByRole('alert').filter({ hasText: 'This passkey was not accepted' });
      await expect(refused).toHaveText('This passkey was not accepted: it may have been removed from its account. Sign in another way.');
      await expect(page).toHaveURL(/\/login$/);
    });
  });

  test('in French: a passkey added under its suggested name completes a password sign-in; the CEO sees how, and the audit log names it', async ({
    browser,
    request,
    baseURL,
  }) => {
    const app = passkeyOrigin(baseURL);
    const ceo = { fullName: `Paule Clé PDG ${runId}`, email: `pk-fr-ceo-${runId}@e2e.test`, password: 'paule-cle-pdg-1' };
    const person = { fullName: `Léa Clé ${runId}`, email: `pk-fr-lea-${runId}@e2e.test`, password: 'lea-cle-acces-1' };
    await enterpriseWithPerson(request, `Clés et Fils ${runId}`, ceo, person);
    const page = await newPerson(browser, 'fr');
    const { cdp, authenticatorId } = await virtualAuthenticator(page);

    await test.step('la personne ajoute une clé d’accès depuis son profil', async () => {
      await submitPassword(page, app, person, 'fr');
      await expectSignedIn(page, person);
      await page.goto(`${app}/settings/profile`);
      const passkeys = page.getByRole('region', { name: "Clés d'accès" });
      await expect(passkeys.getByText("Aucune clé d'accès pour l'instant")).toBeVisible();
      await passkeys.getByRole('button', { name: "Ajouter une clé d'accès" }).click();
      const dialog = page.getByRole('dialog', { name: "Ajouter une clé d'accès" });
      await expect(dialog.getByRole('textbox', { name: /^Nom/ })).toHaveValue('Chrome sur Windows');
      await dialog.getByRole('button', { name: "Créer la clé d'accès" }).click();
      await expect(page.getByText("Clé d'accès «\u00a0Chrome sur Windows\u00a0» ajoutée")).toBeVisible();
      await expect(passkeys.getByTestId('passkey-row')).toContainText('Jamais utilisée');
      await signOut(page, person, 'Se déconnecter');
    });

    await test.step('une clé d’accès refusée est expliquée, puis la clé complète la connexion par mot de passe', async () => {
      await submitPassword(page, app, person, 'fr');
      await expect(page.getByRole('heading', { name: 'Connexion en deux étapes' })).toBeVisible();
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
      await page.getByRole('button', { name: "Utiliser une clé d'accès" }).click();
      await expect(page.getByRole('alert')).toHaveText("La demande de clé d'accès a été annulée ou a expiré. Réessayez quand vous le souhaitez.");
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
      await page.getByRole('button', { name: "Utiliser une clé d'accès" }).click();
      await expectSignedIn(page, person);
    });

    await test.step('le PDG voit comment la session a été ouverte, et le journal d’audit nomme la clé', async () => {
      const ceoPage = await newPerson(browser, 'fr');
      await submitPassword(ceoPage, '', ceo, 'fr');
      await expectSignedIn(ceoPage, ceo);
      await ceoPage.goto(`/ceo/monitoring?show=all&q=${encodeURIComponent(person.fullName)}`);
      const rows = ceoPage.getByTestId('session-row').filter({ hasText: person.fullName });
      await expect(rows.getByTestId('sign-in-method').filter({ hasText: "Mot de passe + clé d'accès" })).toHaveCount(1);
      await ceoPage.goto('/audit?action=mfa');
      await expect(ceoPage.getByTestId('audit-sentence').filter({ hasText: person.fullName })).toContainText(
        `${person.fullName} a ajouté la clé d'accès «\u00a0Chrome sur Windows\u00a0»`,
      );
      await ceoPage.context().close();
    });

    await page.context().close();
  });
});
