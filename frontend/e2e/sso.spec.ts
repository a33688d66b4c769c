import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type APIRequestContext, type Browser, type Page, type Route, expect, test } from '@playwright/test';
import { generateSync } from 'otplib';
import { admin, apiToken, bearer, createEnterprise, createStaff, departmentId, expectSignedIn, signIn } from './support';

/**
 * Single sign-on (OpenID Connect) against the real server and a real provider: oidc-provider in
 * scripts/oidc/provider.mjs, whose sign-in page lets in any e-mail address. scripts/test.sh starts
 * it and exports OIDC_ISSUER (read here, not by the server: an enterprise's settings name it).
 * The server runs with PUBLIC_URL http://127.0.0.1:PORT (playwright.config.ts), so the provider
 * sends the browser back to http://127.0.0.1:PORT/sign-in/sso, a redirect URI it accepts on any
 * port. Its clients: `platform` (codes live 60 s) and `platform-expiring` (codes live 1 s).
 * Each person signs in from a browser context of their own: the provider remembers its sessions
 * per context.
 */

const OIDC_ISSUER = process.env.OIDC_ISSUER ?? 'http://localhost:2590';
const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

type Person = { fullName: string; email: string; password: string };

/** The enterprise whose CEO sets single sign-on up from the CEO's home, in English. */
const uiCeo: Person = { fullName: `Sol Sso CEO ${runId}`, email: `sso-ceo-${runId}@e2e.test`, password: 'sso-ceo-password-1' };
const uiDomain = `sso-e2e-${runId}.example`;
/** One of its people with a password, refused it once single sign-on is required. */
const uiStaff: Person = { fullName: `Pat Password ${runId}`, email: `pat.password@${uiDomain}`, password: 'pat-password-1' };

/** An enterprise set up through the API, for the sign-ins that go wrong (and in French). */
const apiCeo: Person = { fullName: `Ada Api CEO ${runId}`, email: `sso-api-ceo-${runId}@e2e.test`, password: 'sso-api-ceo-password-1' };
const apiDomain = `sso-api-${runId}.example`;
/** The same with the provider's client whose codes live one second. */
const expiringCeo: Person = { fullName: `Eve Expiring CEO ${runId}`, email: `sso-exp-ceo-${runId}@e2e.test`, password: 'sso-exp-ceo-password-1' };
const expiringDomain = `sso-expiring-${runId}.example`;

/** An enterprise that requires a second factor of every single sign-on. */
const mfaCeo: Person = { fullName: `Mia Mfa CEO ${runId}`, email: `sso-mfa-ceo-${runId}@e2e.test`, password: 'sso-mfa-ceo-password-1' };
const mfaDomain = `sso-mfa-${runId}.example`;

const ids = { ui: '', api: '', expiring: '', mfa: '' };

/**
 * Publishes a TXT record at the tests' DNS server (scripts/dns/start.sh, which the server under
 * test looks domain proofs up at): a file of its zone folder, named after the record.
 */
function publishTxt(name: string, value: string) {
  const zone = process.env.DNS_ZONE_DIR;
  if (!zone) throw new Error("DNS_ZONE_DIR: start the tests' DNS server (source scripts/dns/start.sh)");
  writeFileSync(join(zone, name), `${value}\n`);
}

/** Proves a claimed domain through the API, as a CEO would: its TXT record published, then checked. */
async function proveDomain(request: APIRequestContext, token: string, enterpriseId: string, domain: string) {
  const claims = (await (await request.get(`/api/v1/enterprises/${enterpriseId}/sso/domains`, { headers: bearer(token) })).json()) as {
    domain: string;
    txtName: string;
    txtValue: string;
  }[];
  const claim = claims.find((c) => c.domain === domain)!;
  publishTxt(claim.txtName, claim.txtValue);
  const proven = await request.post(`/api/v1/enterprises/${enterpriseId}/sso/domains/${domain}/verify`, { headers: bearer(token) });
  expect(proven.status(), await proven.text()).toBe(200);
}

/** Sets up an enterprise's single sign-on through the API, as its CEO. */
async function configureSso(
  request: APIRequestContext,
  ceo: Person,
  enterpriseId: string,
  domain: string,
  client: { id: string; secret: string },
  extra: Record<string, unknown> = {},
) {
  const ceoToken = await apiToken(request, ceo);
  const response = await request.put(`/api/v1/enterprises/${enterpriseId}/sso`, {
    headers: bearer(ceoToken),
    data: {
      issuer: OIDC_ISSUER,
      clientId: client.id,
      clientSecret: client.secret,
      domains: [domain],
      required: false,
      provisioning: 'just_in_time',
      defaultDepartmentId: await departmentId(request, ceoToken, enterpriseId, 'finance'),
      ...extra,
    },
  });
  expect(response.status(), await response.text()).toBe(200);
  await proveDomain(request, ceoToken, enterpriseId, domain);
}

test.beforeAll(async ({ request }) => {
  const adminToken = await apiToken(request, admin);
  ids.ui = await createEnterprise(request, adminToken, `SSO Works ${runId}`, uiCeo);
  await createStaff(request, await apiToken(request, uiCeo), uiStaff);
  ids.api = await createEnterprise(request, adminToken, `SSO Api ${runId}`, apiCeo);
  await configureSso(request, apiCeo, ids.api, apiDomain, { id: 'platform', secret: 'platform-secret' });
  ids.expiring = await createEnterprise(request, adminToken, `SSO Expiring ${runId}`, expiringCeo);
  await configureSso(request, expiringCeo, ids.expiring, expiringDomain, { id: 'platform-expiring', secret: 'expiring-secret' });
  ids.mfa = await createEnterprise(request, adminToken, `SSO Mfa ${runId}`, mfaCeo);
  await configureSso(request, mfaCeo, ids.mfa, mfaDomain, { id: 'platform', secret: 'platform-secret' }, { requireMfa: true });
});

/** A browser of the person's own (storage and the provider's session apart), in French when asked. */
async function newBrowser(browser: Browser, locale?: 'fr') {
  const context = await browser.newContext(locale ? { locale: 'fr-FR' } : {});
  if (locale) await context.addInitScript(() => window.localStorage.setItem('locale', 'fr'));
  return context.newPage();
}

/** The sign-in page, e-mail first: the address is typed and single sign-on offered for it. */
async function typeAddress(page: Page, email: string, locale: 'en' | 'fr' = 'en') {
  await page.goto('/login');
  await page.getByLabel(locale === 'fr' ? /^E-mail/ : /^Email/).fill(email);
  const button = page.getByRole('button', { name: locale === 'fr' ? "Utiliser l'authentification unique" : 'Continue with single sign-on' });
  await expect(button).toBeVisible();
  return button;
}

/** From the sign-in page to the provider's own sign-in page. */
async function goToProvider(page: Page, email: string, locale: 'en' | 'fr' = 'en') {
  await (await typeAddress(page, email, locale)).click();
  await expect(page).toHaveURL(new RegExp(`^${OIDC_ISSUER}/interaction/`));
  await expect(page.getByRole('heading', { name: 'Test identity provider' })).toBeVisible();
}

/** Signs in at the provider, which sends the browser back to the app. */
async function signInAtProvider(page: Page, email: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The app's return page, /sign-in/sso, after the provider. */
const isCallback = (url: URL) => url.pathname === '/sign-in/sso';

/** No session was opened in this tab. */
async function expectNoSession(page: Page) {
  expect(await page.evaluate(() => localStorage.getItem('token') ?? sessionStorage.getItem('token'))).toBeNull();
}

test.describe('single sign-on', () => {
  // The first two share the enterprise its CEO sets up: the second makes it required.
  test.describe.configure({ mode: 'serial' });

  test('the CEO sets it up from their home; a new person of the domain signs in through the provider and is made on the way', async ({
    page,
    browser,
    baseURL,
  }) => {
    const person = { fullName: 'New Person', email: `new.person@${uiDomain}` };

    await test.step('the CEO fills in the provider, the domain and where new people go, and sees the redirect URI to register', async () => {
      await signIn(page, uiCeo);
      await page.goto('/ceo');
      const card = page.getByRole('region', { name: 'Single sign-on' });
      await expect(card.getByText('Single sign-on is not set up.')).toBeVisible();
      await card.getByRole('button', { name: 'Set up single sign-on' }).click();
      await card.getByRole('textbox', { name: /^Issuer URL/ }).fill(OIDC_ISSUER);
      await card.getByRole('textbox', { name: /^Client ID/ }).fill('platform');
      await card.getByLabel(/^Client secret/).fill('platform-secret');
      const domains = card.getByLabel(/^E-mail domains/);
      await domains.fill(uiDomain);
      await domains.press('Enter');
      await expect(card.getByRole('radio', { name: 'Create their account at their first sign-in' })).toBeChecked();
      await card.getByRole('combobox', { name: 'Department of new accounts' }).click();
      await page.getByRole('option', { name: 'Finance' }).click();
      await expect(card.getByTestId('sso-redirect-uri')).toHaveText(`${baseURL}/sign-in/sso`);
      await expect(card.getByText('Register this redirect URI for the client at your identity provider.')).toBeVisible();
      await card.getByRole('button', { name: 'Save' }).click();
      await expect(page.getByText('Single sign-on settings saved')).toBeVisible();
      await expect(card.getByText('A secret is stored: leave empty to keep it.')).toBeVisible();
      await expect(card.getByText('On', { exact: true })).toBeVisible();
    });

    await test.step('the domain routes nobody until the CEO publishes its TXT record and the app finds it', async () => {
      const card = page.getByRole('region', { name: 'Single sign-on' });
      const proofs = card.getByRole('region', { name: 'Domain ownership' });
      const row = proofs.getByTestId('sso-domain').filter({ hasText: uiDomain });
      await expect(row.getByTestId('sso-domain-status')).toHaveText('Awaiting proof');
      const visitor = await newBrowser(browser);
      await visitor.goto('/login');
      await visitor.getByLabel(/^Email/).fill(person.email);
      await expect(visitor.getByLabel(/^Password/)).toBeVisible();
      await expect(visitor.getByRole('button', { name: 'Continue with single sign-on' })).toHaveCount(0);
      await visitor.context().close();
      // Checked before the record exists: said so, still pending.
      await row.getByRole('button', { name: `Check the record of ${uiDomain}` }).click();
      await expect(page.getByText(`${uiDomain} is not verified yet`)).toBeVisible();
      publishTxt((await row.getByTestId('sso-domain-txt-name').textContent())!, (await row.getByTestId('sso-domain-txt-value').textContent())!);
      await row.getByRole('button', { name: `Check the record of ${uiDomain}` }).click();
      await expect(page.getByText(`${uiDomain} is verified: its people now sign in through your provider.`)).toBeVisible();
      await expect(row.getByTestId('sso-domain-status')).toHaveText('Verified');
    });

    await test.step('a person of the domain is offered single sign-on, signs in at the provider and comes back signed in', async () => {
      const newcomer = await newBrowser(browser);
      await goToProvider(newcomer, person.email);
      await signInAtProvider(newcomer, person.email);
      await expect(newcomer).toHaveURL(/\/dashboard$/);
      await expectSignedIn(newcomer, person);
      // The code and the tab's state are gone.
      expect(await newcomer.evaluate(() => sessionStorage.getItem('sso-state'))).toBeNull();
      await newcomer.context().close();
    });

    await test.step("the CEO's monitoring shows the session opened by single sign-on", async () => {
      await page.goto('/ceo/monitoring');
      const row = page.getByTestId('session-row').filter({ hasText: person.fullName });
      await expect(row.getByTestId('sign-in-method')).toHaveText('Single sign-on');
    });
  });

  test('once required, the sign-in page asks no password for the domain, and a password sign-in is refused', async ({ page, browser, request }) => {
    await test.step('the CEO requires it, and is warned that no break-glass CEO is set', async () => {
      await signIn(page, uiCeo);
      await page.goto('/ceo');
      const card = page.getByRole('region', { name: 'Single sign-on' });
      await card.getByRole('switch', { name: 'Require single sign-on' }).check();
      await expect(card.getByTestId('sso-break-glass-warning')).toBeVisible();
      await card.getByRole('button', { name: 'Save' }).click();
      await expect(page.getByText('Single sign-on settings saved')).toBeVisible();
      await expect(card.getByText('Required', { exact: true })).toBeVisible();
    });

    await test.step('the sign-in page hides the password for an address of the domain', async () => {
      const visitor = await newBrowser(browser);
      const submit = await typeAddress(visitor, uiStaff.email);
      await expect(submit).toHaveAttribute('type', 'submit');
      await expect(visitor.getByLabel(/^Password/)).toHaveCount(0);
      await expect(visitor.getByRole('link', { name: 'Forgot password?' })).toHaveCount(0);
      // Any other address still signs in with its password.
      await visitor.getByLabel(/^Email/).fill(`someone-${runId}@e2e.test`);
      await expect(visitor.getByLabel(/^Password/)).toBeVisible();
      await expect(visitor.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
      await visitor.context().close();
    });

    await test.step("the staff member's password is refused: sso_required", async () => {
      const response = await request.post('/api/v1/auth/login', { data: { email: uiStaff.email, password: uiStaff.password } });
      expect(response.status()).toBe(403);
      expect(((await response.json()) as { code: string }).code).toBe('sso_required');
    });
  });

  test('a return whose state this tab did not keep is refused without asking the server (login CSRF)', async ({ browser }) => {
    const page = await newBrowser(browser);
    // The state the tab kept is replaced before the app reads it on its return page.
    await page.context().addInitScript(() => {
      if (window.location.pathname === '/sign-in/sso') sessionStorage.setItem('sso-state', JSON.stringify({ state: 'planted', remember: false }));
    });
    const finishes: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/v1/auth/sso/finish')) finishes.push(request.url());
    });
    const email = `csrf.victim@${apiDomain}`;
    await goToProvider(page, email);
    await signInAtProvider(page, email);
    await expect(page).toHaveURL((url) => isCallback(url));
    await expect(page.getByRole('alert')).toHaveText('This sign-in was not started in this browser tab. Please sign in again.');
    await expect(page.getByRole('heading', { level: 1, name: 'You are not signed in' })).toBeVisible();
    // The provider's code left the address bar; nothing was sent to the server; no session.
    expect(new URL(page.url()).search).toBe('');
    expect(finishes).toEqual([]);
    await expectNoSession(page);
    await page.getByRole('link', { name: 'Back to sign in' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await page.context().close();
  });

  test('an ID token whose nonce is not the sign-in’s is refused', async ({ browser }) => {
    const page = await newBrowser(browser);
    // The request to the provider's authorization endpoint carries another nonce than the one the server keeps.
    await page.route(
      (url) => url.origin === new URL(OIDC_ISSUER).origin && url.pathname === '/auth',
      async (route: Route) => {
        const url = new URL(route.request().url());
        url.searchParams.set('nonce', `tampered-${runId}`);
        await route.continue({ url: url.toString() });
      },
    );
    const email = `nonce.person@${apiDomain}`;
    await goToProvider(page, email);
    await signInAtProvider(page, email);
    await expect(page.getByRole('alert')).toHaveText("Your identity provider's answer does not belong to this sign-in. Please sign in again.");
    await expectNoSession(page);
    await page.context().close();
  });

  test('a code that expired before the app could use it is refused', async ({ browser }) => {
    const page = await newBrowser(browser);
    // The provider's codes for this client live 1 s: the app hands its code to the server 2.5 s
    // late. (The way back to the app is the end of the provider's redirects, which a route does
    // not see: only the app's own request to finish can be held.)
    await page.route(
      (url) => url.pathname === '/api/v1/auth/sso/finish',
      async (route: Route) => {
        await new Promise((resolve) => setTimeout(resolve, 2500));
        await route.continue();
      },
    );
    const email = `slow.person@${expiringDomain}`;
    await goToProvider(page, email);
    await signInAtProvider(page, email);
    await expect(page.getByRole('alert')).toHaveText('Your identity provider did not accept the sign-in code: it may have expired. Please sign in again.', {
      timeout: 15_000,
    });
    await expectNoSession(page);
    await page.context().close();
  });

  test('cancelling at the provider brings the person back, told so, and signed out', async ({ browser }) => {
    const page = await newBrowser(browser);
    await goToProvider(page, `cancelling.person@${apiDomain}`);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page).toHaveURL((url) => isCallback(url));
    await expect(page.getByRole('alert')).toHaveText('You cancelled at your identity provider. Sign in again when you are ready.');
    await expectNoSession(page);
    await page.context().close();
  });

  test('where the enterprise requires a second factor the provider did not assert, a newcomer sets up ours before any session', async ({ browser, page }) => {
    const person = { fullName: 'Tess Two', email: `tess.two@${mfaDomain}` };
    const newcomer = await newBrowser(browser);
    await goToProvider(newcomer, person.email);
    await signInAtProvider(newcomer, person.email);
    await expect(newcomer).toHaveURL((url) => isCallback(url));
    await expect(newcomer.getByRole('heading', { name: 'Set up two-step sign-in' })).toBeVisible();
    await expectNoSession(newcomer);
    const secret = ((await newcomer.getByTestId('totp-secret').textContent()) ?? '').replace(/\s+/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await newcomer.getByRole('textbox', { name: /^Authentication code/ }).fill(generateSync({ secret, epoch: Math.floor(Date.now() / 1000) }));
    await newcomer.getByRole('button', { name: 'Turn on and sign in' }).click();
    await expect(newcomer.getByRole('heading', { name: 'Save your recovery codes' })).toBeVisible();
    await newcomer.getByRole('checkbox', { name: 'I have saved these recovery codes' }).check();
    await newcomer.getByRole('button', { name: 'Continue' }).click();
    await expect(newcomer).toHaveURL(/\/dashboard$/);
    await expectSignedIn(newcomer, person);
    await newcomer.context().close();

    // The CEO's monitoring says how: the provider, then our second factor.
    await signIn(page, mfaCeo);
    await page.goto('/ceo/monitoring');
    const row = page.getByTestId('session-row').filter({ hasText: person.fullName });
    await expect(row.getByTestId('sign-in-method')).toHaveText('Single sign-on + app code');
  });

  test('in French: the sign-in button, a refusal, and the settings card', async ({ browser }) => {
    const visitor = await newBrowser(browser, 'fr');
    await goToProvider(visitor, `personne.annulee@${apiDomain}`, 'fr');
    await visitor.getByRole('button', { name: 'Cancel' }).click();
    await expect(visitor.getByRole('alert')).toHaveText("Vous avez annulé auprès de votre fournisseur d'identité. Reconnectez-vous quand vous serez prêt.");
    await expect(visitor.getByRole('heading', { level: 1, name: "Vous n'êtes pas connecté" })).toBeVisible();
    await expect(visitor.getByRole('link', { name: 'Retour à la connexion' })).toBeVisible();
    await visitor.context().close();

    const ceoPage = await newBrowser(browser, 'fr');
    await ceoPage.goto('/login');
    await ceoPage.getByLabel(/^E-mail/).fill(apiCeo.email);
    await ceoPage.getByLabel(/^Mot de passe/).fill(apiCeo.password);
    await ceoPage.getByRole('button', { name: 'Se connecter', exact: true }).click();
    await expect(ceoPage).toHaveURL(/\/dashboard$/);
    await ceoPage.goto('/ceo');
    const card = ceoPage.getByRole('region', { name: 'Authentification unique' });
    await expect(card.getByRole('textbox', { name: /^URL de l'émetteur/ })).toHaveValue(OIDC_ISSUER);
    await expect(card.getByText('Un secret est enregistré : laissez vide pour le garder.')).toBeVisible();
    await expect(card.getByRole('radio', { name: 'Créer leur compte à leur première connexion' })).toBeChecked();
    await expect(card.getByRole('button', { name: "Supprimer l'authentification unique" })).toBeVisible();
    await ceoPage.context().close();
  });
});
