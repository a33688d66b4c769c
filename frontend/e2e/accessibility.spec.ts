import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { type APIRequestContext, type Page, expect, test } from '@playwright/test';
import { generateSync } from 'otplib';
import { linkIn, waitForMail } from './mail';
import { overflowing, settle, visit } from './screens';
import { admin } from './support';

/**
 * axe-core on every main screen, in English and in French, signed in as the role that sees it.
 * A violation of impact "serious" or "critical" fails the test; no rule is disabled. In French
 * (the longer language) the same visit also checks, at 1280 px, that no text runs out of its box
 * (`overflowing`), with names, addresses and titles as long as real ones can be; overflow.spec.ts
 * walks the screens again at 800 px.
 */

type Messages = { [key: string]: string | Messages };
type Locale = 'en' | 'fr';
type Credentials = { email: string; password: string };

const messages = (locale: Locale) => JSON.parse(readFileSync(new URL(`../src/i18n/locales/${locale}.json`, import.meta.url), 'utf8')) as Messages;
const text = (locale: Locale, key: string) => key.split('.').reduce<string | Messages>((node, part) => (node as Messages)[part], messages(locale)) as string;

// Each test signs in and scans several whole screens with axe (about 25 s for the admin's on a
// busy 2-core machine): twice the suite's default, so the time limit measures hangs, not load.
// The tests share no state but what beforeAll makes, so they spread over the workers (each worker
// makes its own, under its own runId): in order in one worker, this file alone took 9 minutes.
test.describe.configure({ mode: 'parallel', timeout: 90_000 });

/** Unique per run, so the suite can run again against the same database. */
const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
const ceo = { email: `a11y-ceo-${runId}@e2e.test`, password: 'ceo-password-1' };
const head = {
  name: `Héloïse Delacroix-Montgolfier ${runId}`,
  email: `heloise.delacroix-montgolfier-${runId}@entreprise-exemple.e2e.test`,
  password: 'head-password-1',
};
const member = { name: `Milo Member ${runId}`, email: `a11y-member-${runId}@e2e.test`, password: 'member-password-1' };
/** Per language: someone who sets up two-step sign-in from the profile, and someone a policy makes set it up at sign-in. */
const twoStep = (locale: Locale) => ({
  fromProfile: { email: `a11y-2fa-profile-${locale}-${runId}@e2e.test`, password: 'two-step-password-1' },
  required: { email: `a11y-2fa-required-${locale}-${runId}@e2e.test`, password: 'two-step-password-2' },
});
const strictCeo = { email: `a11y-strict-ceo-${runId}@e2e.test`, password: 'strict-ceo-password-1' };
/** Per language: someone who adds a passkey from the profile, then signs in with it after the password. */
const passkeyUser = (locale: Locale) => ({ email: `a11y-passkey-${locale}-${runId}@e2e.test`, password: 'passkey-password-1' });
/**
 * The enterprise's single sign-on, required for a domain of its own (its people above keep their
 * passwords): the sign-in page in its single sign-on mode, the settings card filled in. The
 * provider is the tests' (scripts/oidc, OIDC_ISSUER).
 */
const OIDC_ISSUER = process.env.OIDC_ISSUER ?? 'http://localhost:2590';
const ssoDomain = `a11y-sso-${runId}.example`;

/** What beforeAll creates: an enterprise, its CEO, the head of Finance and a member, and three reports. */
const ids = {
  enterprise: '',
  finance: '',
  submittedReport: '',
  draftReport: '',
  rejectedReport: '',
  spreadsheet: '',
  strictEnterprise: '',
  scheduledEnterprise: '',
};

/** Signs in through the API, from `from` (X-Forwarded-For) when given, and returns the bearer header. */
async function apiHeaders(request: APIRequestContext, credentials: Credentials, from?: string) {
  const response = await request.post('/api/v1/auth/login', { data: credentials, headers: from ? { 'X-Forwarded-For': from } : {} });
  expect(response.status()).toBe(200);
  return { Authorization: `Bearer ${((await response.json()) as { token: string }).token}` };
}

async function created(response: Awaited<ReturnType<APIRequestContext['post']>>): Promise<string> {
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

test.beforeAll(async ({ request }) => {
  const adminHeaders = await apiHeaders(request, admin);
  ids.enterprise = await created(
    await request.post('/api/v1/enterprises', {
      headers: adminHeaders,
      data: {
        name: `Société générale des constructions métalliques ${runId}`,
        description: 'Une entreprise dont le nom et la description sont longs, comme en vrai.',
        ceoFullName: `Jean-Baptiste de La Rochefoucauld ${runId}`,
        ceoEmail: ceo.email,
        ceoPassword: ceo.password,
      },
    }),
  );

  // An enterprise whose deletion is scheduled: suspended, its restore and purge offered.
  ids.scheduledEnterprise = await created(
    await request.post('/api/v1/enterprises', {
      headers: adminHeaders,
      data: {
        name: `Compagnie des transports fluviaux en liquidation ${runId}`,
        ceoFullName: `Gaëlle Fermeture ${runId}`,
        ceoEmail: `a11y-scheduled-${runId}@e2e.test`,
        ceoPassword: 'scheduled-password-1',
      },
    }),
  );
  const scheduled = await request.delete(`/api/v1/enterprises/${ids.scheduledEnterprise}`, { headers: adminHeaders });
  expect(scheduled.status(), await scheduled.text()).toBe(202);

  const ceoHeaders = await apiHeaders(request, ceo);
  const departments = (await (await request.get(`/api/v1/enterprises/${ids.enterprise}/departments`, { headers: ceoHeaders })).json()) as {
    id: string;
    type: string;
  }[];
  ids.finance = departments.find((department) => department.type === 'finance')!.id;
  const sso = await request.put(`/api/v1/enterprises/${ids.enterprise}/sso`, {
    headers: ceoHeaders,
    data: {
      issuer: OIDC_ISSUER,
      clientId: 'platform',
      clientSecret: 'platform-secret',
      domains: [ssoDomain, `filiale-${ssoDomain}`],
      required: true,
      provisioning: 'just_in_time',
      defaultDepartmentId: ids.finance,
    },
  });
  expect(sso.status(), await sso.text()).toBe(200);
  // The first domain approved by the admin (it routes its people); the subsidiary's still awaits its TXT record.
  const approved = await request.post(`/api/v1/enterprises/${ids.enterprise}/sso/domains/${ssoDomain}/verify?approve=true`, { headers: adminHeaders });
  expect(approved.status(), await approved.text()).toBe(200);
  const headId = await created(
    await request.post('/api/v1/users', {
      headers: ceoHeaders,
      data: { fullName: head.name, email: head.email, password: head.password, role: 'DepartmentHead', departmentId: ids.finance },
    }),
  );
  const madeHead = await request.put(`/api/v1/enterprises/${ids.enterprise}/departments/${ids.finance}`, {
    headers: ceoHeaders,
    data: { headId, description: 'Comptabilité, trésorerie et contrôle de gestion' },
  });
  expect(madeHead.status(), await madeHead.text()).toBe(200);
  await created(
    await request.post('/api/v1/users', {
      headers: ceoHeaders,
      data: { fullName: member.name, email: member.email, password: member.password, role: 'DepartmentUser', departmentId: ids.finance },
    }),
  );
  // Someone invited (no password): the user lists show their invitation and a button to send it again.
  await created(
    await request.post('/api/v1/users', {
      headers: ceoHeaders,
      data: { fullName: `Ingrid Invitée ${runId}`, email: `a11y-invited-${runId}@e2e.test`, role: 'DepartmentUser', departmentId: ids.finance, locale: 'fr' },
    }),
  );

  const headHeaders = await apiHeaders(request, head);
  const report = (title: string, status: 'draft' | 'submitted') => ({
    title,
    content: 'Le chiffre d’affaires a progressé au nord et reculé au sud.',
    periodStart: '2026-01-01',
    periodEnd: '2026-03-31',
    status,
    data: {
      columns: ['Région', 'Chiffre d’affaires', 'Charges d’exploitation'],
      rows: [
        ['Nord', 120, 80],
        ['Sud', 80, 95],
        ['Est', 95.5, 70],
      ],
    },
  });
  const post = async (title: string, status: 'draft' | 'submitted') =>
    created(await request.post(`/api/v1/departments/${ids.finance}/reports`, { headers: headHeaders, data: report(title, status) }));
  ids.submittedReport = await post(`Rapport trimestriel soumis ${runId}`, 'submitted');
  ids.draftReport = await post(`Brouillon du rapport trimestriel ${runId}`, 'draft');
  ids.rejectedReport = await post(`Rapport trimestriel refusé ${runId}`, 'submitted');
  const rejected = await request.post(`/api/v1/reports/${ids.rejectedReport}/review`, {
    headers: ceoHeaders,
    data: { status: 'rejected', reviewNotes: 'Les charges du sud sont à justifier.' },
  });
  expect(rejected.status(), await rejected.text()).toBe(200);
  ids.spreadsheet = await created(
    await request.post(`/api/v1/departments/${ids.finance}/spreadsheets`, { headers: headHeaders, data: { name: `Budget ${runId}` } }),
  );
  // A token of the CEO's own and a service credential of the enterprise, named as long as real
  // ones: the token lists are scanned with rows in them.
  await created(
    await request.post('/api/v1/api-tokens', {
      headers: ceoHeaders,
      data: { name: `Export nocturne des rapports trimestriels ${runId}`, scopes: ['reports:read', 'dashboards:read', 'users:write'] },
    }),
  );
  await created(
    await request.post(`/api/v1/enterprises/${ids.enterprise}/service-tokens`, {
      headers: ceoHeaders,
      data: { name: `Synchronisation de l’entrepôt de données ${runId}`, scopes: ['reports:write', 'spreadsheets:read', 'monitoring:read'] },
    }),
  );

  // A webhook of the enterprise, with a long address and description: the Integrations screen is
  // scanned with one in its list. It hears only new spreadsheets (the one above is made already),
  // so nothing is ever sent to its address.
  await created(
    await request.post('/api/v1/webhooks', {
      headers: ceoHeaders,
      data: {
        url: `http://127.0.0.1:9/synchronisation-comptable/evenements-des-rapports-trimestriels/${runId}`,
        events: ['spreadsheet.created'],
        description: 'Synchronisation avec le logiciel de comptabilité et l’entrepôt de données',
      },
    }),
  );

  // Two-step sign-in: people to set it up from the profile (in the enterprise above, which follows
  // the platform's default), and an enterprise whose own policy requires it of its department staff.
  ids.strictEnterprise = await created(
    await request.post('/api/v1/enterprises', {
      headers: adminHeaders,
      data: {
        name: `Coopérative à sécurité renforcée ${runId}`,
        ceoFullName: `Sévérine Stricte ${runId}`,
        ceoEmail: strictCeo.email,
        ceoPassword: strictCeo.password,
      },
    }),
  );
  const strictHeaders = await apiHeaders(request, strictCeo);
  const policy = await request.put(`/api/v1/enterprises/${ids.strictEnterprise}/security-policy`, {
    headers: strictHeaders,
    data: { mfaRequiredRoles: ['DepartmentUser'] },
  });
  expect(policy.status(), await policy.text()).toBe(200);
  for (const locale of ['en', 'fr'] as const) {
    const { fromProfile, required } = twoStep(locale);
    await created(
      await request.post('/api/v1/users', {
        headers: ceoHeaders,
        data: {
          fullName: `Prudence Profil ${locale} ${runId}`,
          email: fromProfile.email,
          password: fromProfile.password,
          role: 'DepartmentUser',
          departmentId: ids.finance,
        },
      }),
    );
    await created(
      await request.post('/api/v1/users', {
        headers: ceoHeaders,
        data: {
          fullName: `Clémence Clé-d’accès ${locale} ${runId}`,
          email: passkeyUser(locale).email,
          password: passkeyUser(locale).password,
          role: 'DepartmentUser',
          departmentId: ids.finance,
        },
      }),
    );
    await created(
      await request.post('/api/v1/users', {
        headers: strictHeaders,
        data: { fullName: `Oscar Obligé ${locale} ${runId}`, email: required.email, password: required.password, role: 'DepartmentUser' },
      }),
    );
  }

  // An export of the enterprise, so that the CEO's home and the admin's page scan its card with
  // an archive listed (written in the background meanwhile).
  const exported = await request.post(`/api/v1/enterprises/${ids.enterprise}/exports`, { headers: ceoHeaders });
  expect(exported.status(), await exported.text()).toBe(202);

  // Sessions with places for the monitoring map (MaxMind's test database): London and Boxford
  // close enough to share a marker, Milton alone; the second sign-in from abroad is flagged.
  await apiHeaders(request, member, '81.2.69.142');
  await apiHeaders(request, member, '2.125.160.216');
  await apiHeaders(request, head, '216.160.83.56');
});

/**
 * Scans the page with axe; every serious or critical violation is reported, with the elements at
 * fault. Every rule runs; in the page itself (legacy mode: the app has no frames, and the default
 * opens a blank page per scan to assemble the frames' results), with details kept for violations
 * only (passes and inapplicable rules are counted, not described). Both halve a scan's CPU (0.8 to
 * 0.4 s on the admin's enterprises) and find the same violations, with the same elements.
 */
async function expectNoSeriousViolations(page: Page, screen: string) {
  await settle(page);
  const { violations } = await new AxeBuilder({ page })
    .setLegacyMode(true)
    .options({ resultTypes: ['violations'] })
    .analyze();
  const serious = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      rule: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => `${node.target.join(' ')}: ${node.failureSummary?.replace(/\s+/g, ' ')}`),
    }));
  expect.soft(serious, `${screen}: serious or critical axe violations`).toEqual([]);
}

/** Signs in through the form, at `origin` when given (the passkeys' `localhost`). */
async function signIn(page: Page, locale: Locale, credentials: Credentials, origin = '') {
  await page.goto(`${origin}/login`);
  await page.getByLabel(new RegExp(`^${text(locale, 'auth.email')}`)).fill(credentials.email);
  await page.getByLabel(new RegExp(`^${text(locale, 'auth.password')}`)).fill(credentials.password);
  await page.getByRole('button', { name: text(locale, 'auth.login.submit') }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** Scans each screen with axe; in French, the same visit checks that no text runs out of its box. */
async function scan(page: Page, locale: Locale, paths: string[]) {
  for (const path of paths) {
    await test.step(path, async () => {
      await visit(page, path);
      await expectNoSeriousViolations(page, path);
      // The screen itself was scanned, not the page a guard or an error sent the user to.
      expect(new URL(page.url()).pathname).toBe(new URL(path, page.url()).pathname);
      if (locale === 'fr') {
        const { width } = page.viewportSize()!;
        expect.soft(await overflowing(page), `${path} at ${width} px: content wider than its box`).toEqual([]);
      }
    });
  }
}

for (const locale of ['en', 'fr'] as const) {
  test.describe(`accessibility (${locale})`, () => {
    test.beforeEach(async ({ page }) => {
      await page.addInitScript((value) => window.localStorage.setItem('locale', value), locale);
    });

    test('signed-out screens', async ({ page }) => {
      await scan(page, locale, [
        '/login',
        '/forgot-password',
        // The e-mailed links: their forms, and what a link without its token says.
        '/reset-password?token=a11y',
        '/reset-password',
        '/accept-invitation?token=a11y',
        '/accept-invitation',
        // The return from the identity provider: cancelled there, and a sign-in this tab did not start.
        '/sign-in/sso?error=access_denied&state=a11y',
        '/sign-in/sso?code=a11y&state=a11y',
        '/no-such-page',
      ]);
      await test.step('/login, single sign-on required for the address typed', async () => {
        await page.goto('/login');
        await page.getByLabel(new RegExp(`^${text(locale, 'auth.email')}`)).fill(`quelqu-un@${ssoDomain}`);
        await expect(page.getByRole('button', { name: text(locale, 'auth.login.sso') })).toBeVisible();
        await expect(page.getByLabel(new RegExp(`^${text(locale, 'auth.password')}`))).toHaveCount(0);
        await expectNoSeriousViolations(page, 'the sign-in page, single sign-on required');
        if (locale === 'fr') expect.soft(await overflowing(page), 'the sign-in page in its single sign-on mode: content wider than its box').toEqual([]);
      });
    });

    test('the account forms, with their errors', async ({ page, request }) => {
      await page.goto('/forgot-password');
      await page.getByRole('button', { name: text(locale, 'auth.forgot.submit') }).click();
      await expect(page.getByText(text(locale, 'validation.required'))).toBeVisible();
      await expectNoSeriousViolations(page, 'forgot password, with an error');

      // The e-mailed links' pages check their link as they open: working links, from the mail catcher.
      const invited = `a11y-invited-${locale}-${runId}@e2e.test`;
      await created(
        await request.post('/api/v1/users', {
          headers: await apiHeaders(request, ceo),
          data: { fullName: `Iris Invitée ${locale} ${runId}`, email: invited, role: 'DepartmentUser', departmentId: ids.finance, locale },
        }),
      );
      const invitation = await waitForMail(request, invited, (mail) => mail.text.includes('/accept-invitation?token='));
      await page.goto(linkIn(invitation, '/accept-invitation?token='));
      await page.getByRole('button', { name: text(locale, 'emailLinks.accept.submit') }).click();
      await expect(page.getByText(text(locale, 'validation.required'))).toHaveCount(2);
      await expectNoSeriousViolations(page, 'an invitation, with errors');
      await page.goto('/accept-invitation?token=no-such-token');
      await expect(page.getByRole('alert')).toContainText(text(locale, 'emailLinks.accept.dead'));
      await expectNoSeriousViolations(page, 'an invitation whose link is dead');

      // Someone of this locale's own: a new reset link replaces an earlier one of the same person.
      const resetter = `a11y-reset-${locale}-${runId}@e2e.test`;
      await created(
        await request.post('/api/v1/users', {
          headers: await apiHeaders(request, ceo),
          data: { fullName: `Rémi Reset ${locale} ${runId}`, email: resetter, password: 'reset-password-1', role: 'DepartmentUser', departmentId: ids.finance },
        }),
      );
      const asked = await request.post('/api/v1/auth/password-reset', { data: { email: resetter } });
      expect(asked.status()).toBe(202);
      const reset = await waitForMail(request, resetter, (mail) => mail.text.includes('/reset-password?token='));
      await page.goto(linkIn(reset, '/reset-password?token='));
      await page.getByRole('button', { name: text(locale, 'emailLinks.reset.submit') }).click();
      await expect(page.getByText(text(locale, 'validation.required'))).toHaveCount(2);
      await expectNoSeriousViolations(page, 'a password reset, with errors');

      await signIn(page, locale, member);
      await page.goto('/settings/profile');
      const password = page.getByRole('region', { name: text(locale, 'profile.password.title') });
      await password.getByRole('button', { name: text(locale, 'profile.password.submit') }).click();
      await expect(password.getByText(text(locale, 'validation.required'))).toHaveCount(3);
      await expectNoSeriousViolations(page, 'the profile, with errors');
      if (locale === 'fr') expect.soft(await overflowing(page), 'the profile with errors: content wider than its box').toEqual([]);
    });

    test("the admin's screens", async ({ page }) => {
      await signIn(page, locale, admin);
      await scan(page, locale, [
        '/dashboard',
        '/admin',
        '/admin/enterprises',
        `/admin/enterprises/${ids.enterprise}`,
        `/admin/enterprises/${ids.enterprise}/integrations`,
        '/admin/users',
      ]);
    });

    // Apart from the six above: eleven screens in one test took over 60 s on a loaded machine.
    test("the admin's monitoring, a report, the messenger, tokens and a missing page", async ({ page }) => {
      await signIn(page, locale, admin);
      await scan(page, locale, ['/admin/monitoring', `/ceo/reports/${ids.submittedReport}`, '/messages', '/settings/api-tokens', '/no-such-page']);
    });

    test("the admin's integrations and audit log", async ({ page }) => {
      await signIn(page, locale, admin);
      await scan(page, locale, ['/admin/integrations', '/admin/audit', '/admin/enterprises/create', '/settings/profile']);
    });

    test('single sign-on: the settings card not set up (with its errors), set up and required, and its removal confirmation', async ({ page }) => {
      const frenchFits = async (screen: string) => {
        if (locale === 'fr') expect.soft(await overflowing(page), `${screen}: content wider than its box`).toEqual([]);
      };
      await signIn(page, locale, admin);
      const card = page.getByRole('region', { name: text(locale, 'ssoSettings.title') });
      await page.goto(`/admin/enterprises/${ids.strictEnterprise}`);
      await expect(card.getByText(text(locale, 'ssoSettings.notSetUp'))).toBeVisible();
      await expectNoSeriousViolations(page, 'the single sign-on card, not set up');
      await card.getByRole('button', { name: text(locale, 'ssoSettings.setUp') }).click();
      await card.getByRole('button', { name: text(locale, 'ssoSettings.save'), exact: true }).click();
      await expect(card.getByText(text(locale, 'validation.required'))).toHaveCount(4);
      await expectNoSeriousViolations(page, 'the single sign-on form, with errors');
      await frenchFits('the single sign-on form, with errors');

      await page.goto(`/admin/enterprises/${ids.enterprise}`);
      await expect(card.getByRole('textbox', { name: new RegExp(`^${text(locale, 'ssoSettings.issuer')}`) })).toHaveValue(OIDC_ISSUER);
      await expect(card.getByTestId('sso-break-glass-warning')).toBeVisible();
      // A verified domain and one awaiting its TXT record, with the admin's approval offered.
      await expect(card.getByTestId('sso-domain')).toHaveCount(2);
      await expectNoSeriousViolations(page, 'the single sign-on card, set up and required');
      await frenchFits('the single sign-on card, set up and required');
      await card.getByRole('button', { name: text(locale, 'ssoSettings.remove') }).click();
      const dialog = page.getByRole('dialog', { name: text(locale, 'ssoSettings.removeTitle') });
      await expect(dialog.getByTestId('remove-sso-confirmation')).toBeVisible();
      await expectNoSeriousViolations(page, 'removing single sign-on');
      await frenchFits('removing single sign-on');
      await dialog.getByRole('button', { name: text(locale, 'common.cancel') }).click();
      await expect(dialog).toBeHidden();
    });

    test('dialogs: an edit form and a confirmation, each closed by its named close button', async ({ page }) => {
      await signIn(page, locale, admin);
      await page.goto(`/admin/enterprises/${ids.enterprise}`);
      const close = text(locale, 'common.close');
      await page.getByRole('button', { name: text(locale, 'common.edit'), exact: true }).click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await expectNoSeriousViolations(page, 'the enterprise edit dialog');
      await page.getByRole('dialog').getByRole('button', { name: close, exact: true }).click();
      await expect(page.getByRole('dialog')).toBeHidden();
      await page.getByRole('button', { name: text(locale, 'common.delete'), exact: true }).click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await expectNoSeriousViolations(page, 'the enterprise delete confirmation');
      await page.getByRole('dialog').getByRole('button', { name: close, exact: true }).click();
      await expect(page.getByRole('dialog')).toBeHidden();
      await page.getByRole('button', { name: text(locale, 'enterprises.usage.editLimits'), exact: true }).click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await expectNoSeriousViolations(page, "the enterprise's limits dialog");
      await page.getByRole('dialog').getByRole('button', { name: close, exact: true }).click();
      await expect(page.getByRole('dialog')).toBeHidden();
      // The usage's days as a table, beside the chart the page scan saw.
      await page
        .getByRole('radiogroup', { name: text(locale, 'enterprises.usage.viewLabel') })
        .getByText(text(locale, 'enterprises.usage.asTable'), { exact: true })
        .click();
      await expect(page.getByRole('table', { name: text(locale, 'enterprises.usage.tableLabel') })).toBeVisible();
      await expectNoSeriousViolations(page, "the enterprise's usage as a table");
    });

    test('an enterprise scheduled for deletion, and the confirmation of its purge', async ({ page }) => {
      await signIn(page, locale, admin);
      await scan(page, locale, [`/admin/enterprises/${ids.scheduledEnterprise}`]);
      const banner = page.getByRole('region', { name: text(locale, 'enterprises.scheduled.title') });
      await banner.getByRole('button', { name: text(locale, 'enterprises.scheduled.purge') }).click();
      const dialog = page.getByRole('dialog', { name: text(locale, 'enterprises.purge.title') });
      await expect(dialog.getByTestId('purge-enterprise-confirmation')).toBeVisible();
      await expectNoSeriousViolations(page, 'the enterprise purge confirmation');
      if (locale === 'fr') expect.soft(await overflowing(page), 'the purge confirmation: content wider than its box').toEqual([]);
      await dialog.getByRole('button', { name: text(locale, 'common.cancel') }).click();
      await expect(dialog).toBeHidden();
    });

    test('the import of an enterprise: its form, with its error', async ({ page }) => {
      await signIn(page, locale, admin);
      await visit(page, '/admin/enterprises');
      await page.getByRole('button', { name: text(locale, 'enterprises.imports.action') }).click();
      const dialog = page.getByRole('dialog', { name: text(locale, 'enterprises.imports.title') });
      await dialog.getByRole('button', { name: text(locale, 'enterprises.imports.submit') }).click();
      await expect(dialog.getByText(text(locale, 'enterprises.imports.fileRequired'))).toBeVisible();
      await expectNoSeriousViolations(page, 'the enterprise import dialog');
      if (locale === 'fr') expect.soft(await overflowing(page), 'the import dialog: content wider than its box').toEqual([]);
      await dialog.getByRole('button', { name: text(locale, 'common.cancel') }).click();
      await expect(dialog).toBeHidden();
    });

    test("a person's erasure: its confirmation, closed without erasing", async ({ page }) => {
      await signIn(page, locale, ceo);
      await page.goto(`/admin/users?q=${encodeURIComponent(member.email)}`);
      await page.getByRole('button', { name: text(locale, 'users.list.actionsFor').replace('{{name}}', member.name) }).click();
      await page.getByRole('menuitem', { name: text(locale, 'users.erase.action') }).click();
      const dialog = page.getByRole('dialog', { name: text(locale, 'users.erase.title') });
      await expect(dialog.getByTestId('erase-user-confirmation')).toBeVisible();
      await expectNoSeriousViolations(page, 'the erasure confirmation');
      if (locale === 'fr') expect.soft(await overflowing(page), 'the erasure confirmation: content wider than its box').toEqual([]);
      await dialog.getByRole('button', { name: text(locale, 'common.cancel') }).click();
      await expect(dialog).toBeHidden();
    });

    test("the CEO's screens", async ({ page }) => {
      // Twelve screens scanned in one sign-in: 51 s in English on a loaded 2-core CI machine,
      // over the 60 s of the others in French once.
      test.setTimeout(120_000);
      await signIn(page, locale, ceo);
      await scan(page, locale, [
        '/dashboard',
        '/ceo',
        '/ceo/reports',
        `/ceo/reports/${ids.submittedReport}`,
        '/admin/users',
        '/messages',
        '/ceo/integrations',
        '/audit',
        '/settings/api-tokens',
        '/settings/profile',
        '/admin/users/create',
        // Last: the next step opens a place of its map.
        '/ceo/monitoring',
      ]);
      await test.step("/ceo/monitoring, a place's sessions in the side panel", async () => {
        const map = page.getByRole('region', { name: text(locale, 'monitoring.map.label') });
        // The head's session, alone in Milton.
        await map.getByRole('button', { name: /^Milton, / }).click();
        const panel = page.getByRole('dialog');
        await expect(panel.getByTestId('session-row')).toHaveCount(1);
        await expectNoSeriousViolations(page, "/ceo/monitoring with a place's panel");
        await page.keyboard.press('Escape');
        await expect(panel).toBeHidden();
      });
    });

    test('the "Your sessions" panel', async ({ page }) => {
      await signIn(page, locale, member);
      await page.getByRole('button', { name: new RegExp(`^${text(locale, 'userMenu.label').split(' {{')[0]}`) }).click();
      await page.getByRole('menuitem', { name: text(locale, 'userMenu.yourSessions') }).click();
      const dialog = page.getByRole('dialog', { name: text(locale, 'yourSessions.title') });
      await expect(dialog.getByTestId('your-session').first()).toBeVisible();
      await expectNoSeriousViolations(page, 'Your sessions');
    });

    test('API tokens: the empty list, the new token form (with its errors) and the secret shown once', async ({ page }) => {
      await signIn(page, locale, member);
      await scan(page, locale, ['/settings/api-tokens']);
      await page.getByRole('button', { name: text(locale, 'apiTokens.personal.create') }).click();
      const form = page.getByRole('dialog', { name: text(locale, 'apiTokens.personal.createTitle') });
      await expect(form).toBeVisible();
      await expectNoSeriousViolations(page, 'the new token form');
      await form.getByRole('button', { name: text(locale, 'apiTokens.form.submit'), exact: true }).click();
      await expect(form.getByText(text(locale, 'apiTokens.form.scopesRequired'))).toBeVisible();
      await expectNoSeriousViolations(page, 'the new token form, with errors');
      await form.getByLabel(new RegExp(`^${text(locale, 'apiTokens.form.name')}`)).fill(`Jeton d’accessibilité ${runId}`);
      const scope = text(locale, 'apiTokens.scopes.checkbox')
        .replace('{{area}}', text(locale, 'apiTokens.scopes.areas.spreadsheets'))
        .replace('{{level}}', text(locale, 'apiTokens.scopes.levels.write'));
      await form.getByRole('checkbox', { name: scope }).check();
      await form.getByRole('button', { name: text(locale, 'apiTokens.form.submit'), exact: true }).click();
      const secret = page.getByRole('dialog', { name: text(locale, 'apiTokens.secret.title') });
      await expect(secret.getByTestId('token-secret')).toBeVisible();
      await expectNoSeriousViolations(page, 'the new token’s secret');
      if (locale === 'fr') expect.soft(await overflowing(page), 'the new token’s secret: content wider than its box').toEqual([]);
      await secret.getByRole('button', { name: text(locale, 'apiTokens.secret.done') }).click();
      await expect(secret).toBeHidden();
    });

    test("webhooks and the audit log: the new webhook form (with its errors), a webhook's deliveries, an entry's details", async ({ page }) => {
      await signIn(page, locale, ceo);
      await page.goto('/ceo/integrations');
      await page.getByRole('button', { name: text(locale, 'webhooks.create'), exact: true }).click();
      const form = page.getByRole('dialog', { name: text(locale, 'webhooks.enterprise.createTitle') });
      await expect(form).toBeVisible();
      await form.getByRole('button', { name: text(locale, 'webhooks.form.submit'), exact: true }).click();
      await expect(form.getByText(text(locale, 'webhooks.form.eventsRequired'))).toBeVisible();
      await expectNoSeriousViolations(page, 'the new webhook form, with errors');
      if (locale === 'fr') expect.soft(await overflowing(page), 'the new webhook form: content wider than its box').toEqual([]);
      await page.keyboard.press('Escape');
      await expect(form).toBeHidden();

      const deliveries = text(locale, 'webhooks.actions.deliveries');
      await page
        .getByTestId('webhook-row')
        .getByRole('button', { name: new RegExp(`^${deliveries}`) })
        .click();
      const dialog = page.getByRole('dialog', { name: text(locale, 'webhooks.deliveries.title') });
      await expect(dialog.getByText(text(locale, 'webhooks.deliveries.empty'))).toBeVisible();
      await expectNoSeriousViolations(page, "a webhook's deliveries");
      await page.keyboard.press('Escape');

      await page.goto('/audit');
      const entry = page.getByTestId('audit-entry').first();
      await entry.getByRole('button', { name: text(locale, 'audit.entry.details') }).click();
      await expect(entry.getByTestId('audit-details')).toBeVisible();
      await expectNoSeriousViolations(page, 'the audit log, an entry open');
      if (locale === 'fr') expect.soft(await overflowing(page), 'the audit log, an entry open: content wider than its box').toEqual([]);
    });

    test('the messenger: set up, a conversation, its dialogs', async ({ page, request }) => {
      // Someone to write to: the head, with keys of their own (as their browser registers them).
      const headHeaders = await apiHeaders(request, head);
      const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const { x, y } = publicKey.export({ format: 'jwk' });
      const point = Buffer.concat([Buffer.from([4]), Buffer.from(x!, 'base64url'), Buffer.from(y!, 'base64url')]).toString('base64');
      const registered = await request.post('/api/v1/messaging/keys', { headers: headHeaders, data: { agreementKey: point, signingKey: point } });
      expect(registered.status(), await registered.text()).toBe(201);
      await signIn(page, locale, member);
      // A first visit in this browser: keys are made, a backup passphrase asked for (scanned as /messages above).
      await page.goto('/messages');
      await page.getByRole('button', { name: text(locale, 'messenger.setup.skip') }).click();
      await expectNoSeriousViolations(page, '/messages, the list');
      await page
        .getByRole('button', { name: text(locale, 'messenger.newChat.open') })
        .first()
        .click();
      const picker = page.getByRole('dialog', { name: text(locale, 'messenger.newChat.title') });
      await expect(picker.getByRole('button').filter({ hasText: head.name })).toBeEnabled();
      await expectNoSeriousViolations(page, '/messages, the new chat picker');
      await picker.getByRole('button').filter({ hasText: head.name }).click();
      const composer = page.getByRole('textbox', { name: text(locale, 'messenger.composer.label') });
      await composer.fill(`Accessible hello (${locale})`);
      await composer.press('Enter');
      await expect(page.getByTestId('message').filter({ hasText: `Accessible hello (${locale})` })).toBeVisible();
      await expectNoSeriousViolations(page, '/messages, a conversation open');
      await page.getByRole('button', { name: text(locale, 'messenger.safety.verify') }).click();
      await expect(page.getByTestId('safety-number')).toBeVisible();
      await expectNoSeriousViolations(page, '/messages, the safety number');
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: text(locale, 'messenger.backup.open') }).click();
      await expect(
        page.getByRole('dialog', { name: text(locale, 'messenger.backup.title') }).getByRole('button', { name: text(locale, 'messenger.backup.setUp') }),
      ).toBeVisible();
      await expectNoSeriousViolations(page, '/messages, the key backup');
    });

    test("two-step sign-in: the set-up after the password, the profile's set-up with its recovery codes, a policy of its own", async ({ page }) => {
      const { fromProfile, required } = twoStep(locale);
      const code = (secret: string) => generateSync({ secret: secret.replace(/\s+/g, '') });

      await test.step('the set-up a policy requires, right after the password', async () => {
        await page.goto('/login');
        await page.getByLabel(new RegExp(`^${text(locale, 'auth.email')}`)).fill(required.email);
        await page.getByLabel(new RegExp(`^${text(locale, 'auth.password')}`)).fill(required.password);
        await page.getByRole('button', { name: text(locale, 'auth.login.submit') }).click();
        await expect(page.getByTestId('totp-qr')).toBeVisible();
        await expectNoSeriousViolations(page, 'the sign-in: setting up an authenticator');
        if (locale === 'fr') expect.soft(await overflowing(page), 'the sign-in set-up: content wider than its box').toEqual([]);
        await page.getByTestId('totp-code-input').fill(code((await page.getByTestId('totp-secret').textContent()) ?? ''));
        await page.getByRole('button', { name: text(locale, 'twoStep.enroll.submit') }).click();
        await expect(page.getByTestId('recovery-code')).toHaveCount(10);
        await expectNoSeriousViolations(page, 'the sign-in: the recovery codes');
        if (locale === 'fr') expect.soft(await overflowing(page), 'the sign-in recovery codes: content wider than its box').toEqual([]);
        await page.getByRole('checkbox', { name: text(locale, 'twoStep.codes.kept') }).check();
        await page.getByRole('button', { name: text(locale, 'twoStep.continue') }).click();
        await expect(page).toHaveURL(/\/dashboard$/);
        await page.evaluate(() => [localStorage, sessionStorage].forEach((storage) => storage.clear()));
      });

      await test.step('the code step of a later sign-in', async () => {
        await page.goto('/login');
        await page.getByLabel(new RegExp(`^${text(locale, 'auth.email')}`)).fill(required.email);
        await page.getByLabel(new RegExp(`^${text(locale, 'auth.password')}`)).fill(required.password);
        await page.getByRole('button', { name: text(locale, 'auth.login.submit') }).click();
        await expect(page.getByTestId('totp-code-input')).toBeFocused();
        await expectNoSeriousViolations(page, 'the sign-in: the code step');
        await page.getByRole('button', { name: text(locale, 'twoStep.useRecovery') }).click();
        await expect(page.getByTestId('recovery-code-input')).toBeVisible();
        await expectNoSeriousViolations(page, 'the sign-in: a recovery code');
      });

      await test.step("the profile's set-up dialog, then its recovery codes", async () => {
        await signIn(page, locale, fromProfile);
        await page.goto('/settings/profile');
        const section = page.getByRole('region', { name: text(locale, 'profile.twoStep.title') });
        await section.getByRole('button', { name: text(locale, 'profile.twoStep.setUp') }).click();
        const dialog = page.getByRole('dialog', { name: text(locale, 'profile.twoStep.setupTitle') });
        await expect(dialog.getByTestId('totp-qr')).toBeVisible();
        await expectNoSeriousViolations(page, "the profile's set-up dialog");
        if (locale === 'fr') expect.soft(await overflowing(page), "the profile's set-up dialog: content wider than its box").toEqual([]);
        await dialog.getByTestId('totp-code-input').fill(code((await dialog.getByTestId('totp-secret').textContent()) ?? ''));
        await dialog.getByRole('button', { name: text(locale, 'profile.twoStep.turnOn') }).click();
        const codes = page.getByRole('dialog', { name: text(locale, 'twoStep.codes.title') });
        await expect(codes.getByTestId('recovery-code')).toHaveCount(10);
        await expectNoSeriousViolations(page, "the profile's recovery codes");
        if (locale === 'fr') expect.soft(await overflowing(page), "the profile's recovery codes: content wider than its box").toEqual([]);
        await codes.getByRole('checkbox', { name: text(locale, 'twoStep.codes.kept') }).check();
        await codes.getByRole('button', { name: text(locale, 'profile.twoStep.done') }).click();
        await expect(codes).toBeHidden();
        await expect(section.getByTestId('recovery-codes-left')).toBeVisible();
        await expectNoSeriousViolations(page, 'the profile, two-step sign-in on');
        await section.getByRole('button', { name: text(locale, 'profile.twoStep.disable') }).click();
        await expect(page.getByRole('dialog', { name: text(locale, 'profile.twoStep.disableTitle') })).toBeVisible();
        await expectNoSeriousViolations(page, 'the profile, turning two-step sign-in off');
      });

      await test.step("an enterprise's own policy (the admin's view) and the platform's", async () => {
        await page.evaluate(() => [localStorage, sessionStorage].forEach((storage) => storage.clear()));
        await signIn(page, locale, admin);
        await page.goto(`/admin/enterprises/${ids.strictEnterprise}`);
        const card = page.getByRole('region', { name: text(locale, 'security.title') });
        await expect(card.getByRole('checkbox', { name: text(locale, 'security.roles.DepartmentUser') })).toBeChecked();
        await expectNoSeriousViolations(page, "an enterprise's own security policy");
        if (locale === 'fr') expect.soft(await overflowing(page), "an enterprise's own policy: content wider than its box").toEqual([]);
      });
    });

    test('passkeys: the profile’s list and its dialogs, the second step with a passkey', async ({ page, baseURL }) => {
      // A passkey's relying party is `localhost`, not an IP address (see e2e/passkeys.spec.ts).
      const app = baseURL!.replace('127.0.0.1', 'localhost');
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
      const section = page.getByRole('region', { name: text(locale, 'profile.passkeys.title') });
      const frenchFits = async (screen: string) => {
        if (locale === 'fr') expect.soft(await overflowing(page), `${screen}: content wider than its box`).toEqual([]);
      };

      await test.step('the profile without passkeys, then adding one', async () => {
        await signIn(page, locale, passkeyUser(locale), app);
        await page.goto(`${app}/settings/profile`);
        await expect(section.getByText(text(locale, 'profile.passkeys.empty'))).toBeVisible();
        await expectNoSeriousViolations(page, 'the profile, no passkeys');
        await section.getByRole('button', { name: text(locale, 'profile.passkeys.add') }).click();
        const dialog = page.getByRole('dialog', { name: text(locale, 'profile.passkeys.addTitle') });
        await expect(dialog.getByRole('textbox')).toBeVisible();
        await expectNoSeriousViolations(page, 'adding a passkey');
        await frenchFits('adding a passkey');
        await dialog.getByRole('textbox').fill(`Ordinateur portable du bureau de la direction financière ${locale}`);
        await dialog.getByRole('button', { name: text(locale, 'profile.passkeys.create') }).click();
        await expect(section.getByTestId('passkey-row')).toHaveCount(1);
        await expect(dialog).toBeHidden();
        await expectNoSeriousViolations(page, 'the profile, a passkey listed');
        await frenchFits('the profile, a passkey listed');
      });

      await test.step('renaming and removing it', async () => {
        await section.getByTestId('passkey-row').getByRole('button').first().click();
        const rename = page.getByRole('dialog', { name: text(locale, 'profile.passkeys.renameTitle') });
        await expect(rename.getByRole('textbox')).toBeFocused();
        await expectNoSeriousViolations(page, 'renaming a passkey');
        await rename.getByRole('button', { name: text(locale, 'common.cancel') }).click();
        await expect(rename).toBeHidden();
        await section.getByTestId('passkey-row').getByRole('button').last().click();
        const remove = page.getByRole('dialog', { name: text(locale, 'profile.passkeys.removeTitle') });
        await expect(remove.getByTestId('remove-passkey-confirmation')).toBeVisible();
        await expectNoSeriousViolations(page, 'removing a passkey');
        await frenchFits('removing a passkey');
        await remove.getByRole('button', { name: text(locale, 'common.cancel') }).click();
        await expect(remove).toBeHidden();
      });

      await test.step('the second step with a passkey only, and a passkey prompt not completed', async () => {
        await page.evaluate(() => [localStorage, sessionStorage].forEach((storage) => storage.clear()));
        await page.goto(`${app}/login`);
        await page.getByLabel(new RegExp(`^${text(locale, 'auth.email')}`)).fill(passkeyUser(locale).email);
        await page.getByLabel(new RegExp(`^${text(locale, 'auth.password')}`)).fill(passkeyUser(locale).password);
        await page.getByRole('button', { name: text(locale, 'auth.login.submit'), exact: true }).click();
        const usePasskey = page.getByRole('button', { name: text(locale, 'passkeys.use') });
        await expect(usePasskey).toBeFocused();
        await expectNoSeriousViolations(page, 'the sign-in: the passkey step');
        await frenchFits('the sign-in: the passkey step');
        await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
        await usePasskey.click();
        await expect(page.getByRole('alert')).toHaveText(text(locale, 'passkeys.errors.cancelled'));
        await expectNoSeriousViolations(page, 'the sign-in: a passkey prompt not completed');
        await frenchFits('the sign-in: a passkey prompt not completed');
      });
    });

    test("a department head's screens", async ({ page }) => {
      await signIn(page, locale, head);
      const department = `/department/${ids.finance}`;
      await scan(page, locale, [
        '/dashboard',
        department,
        `${department}/reports`,
        `${department}/reports/${ids.submittedReport}`,
        `${department}/reports/create`,
        `${department}/reports/${ids.draftReport}/edit`,
        `${department}/reports/${ids.rejectedReport}/edit`,
        '/messages',
        '/settings/profile',
      ]);
    });

    test("a department head's spreadsheet screens", async ({ page }) => {
      const spreadsheets = `/department/${ids.finance}/spreadsheet`;
      await signIn(page, locale, head);
      await scan(page, locale, [spreadsheets, `${spreadsheets}/${ids.spreadsheet}`]);
      await test.step('the editor, "Use in a report" open', async () => {
        await page.getByRole('button', { name: text(locale, 'spreadsheets.report.action') }).click();
        await expect(page.getByRole('dialog', { name: text(locale, 'spreadsheets.report.title') })).toBeVisible();
        await expectNoSeriousViolations(page, 'the spreadsheet editor with "Use in a report"');
      });
    });

    test("the CEO's read-only spreadsheet screens", async ({ page }) => {
      const spreadsheets = `/department/${ids.finance}/spreadsheet`;
      await signIn(page, locale, ceo);
      await scan(page, locale, [spreadsheets, `${spreadsheets}/${ids.spreadsheet}`]);
    });
  });
}
