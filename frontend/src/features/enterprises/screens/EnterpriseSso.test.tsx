import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { SsoDomain, SsoSettings, SsoSettingsChange } from '@/api/generated/model';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { type MockRequest, mockApi } from '@/testing/api-mock';
import { apiError, jsonResponse, makeEnterpriseDetail, makeEnterpriseSecurityPolicy, makeSsoSettings, makeUser, page, makeUsage } from '@/testing/fixtures';
import { selectOptions } from '@/testing/select';
import { renderApp } from '@/app/testing';

const detail = makeEnterpriseDetail({ name: 'Acme Corp' });
const base = `/api/v1/enterprises/${detail.id}`;
const finance = detail.departments.find((department) => department.type === 'finance')!;
const ceoId = detail.ceo!.id;

/** What the server keeps of a change, as it answers it. */
function savedFrom(change: SsoSettingsChange, before: SsoSettings): SsoSettings {
  return {
    ...before,
    configured: true,
    issuer: change.issuer,
    clientId: change.clientId,
    clientSecretSet: before.clientSecretSet || Boolean(change.clientSecret),
    domains: change.domains,
    required: change.required ?? false,
    provisioning: change.provisioning,
    defaultRole: change.defaultRole ?? 'DepartmentUser',
    defaultDepartmentId: change.defaultDepartmentId ?? undefined,
    breakGlassUserId: change.breakGlassUserId ?? undefined,
    breakGlassReady: false,
    acceptUnverifiedEmail: change.acceptUnverifiedEmail ?? false,
    requireMfa: change.requireMfa ?? false,
    updatedAt: '2026-05-01T10:00:00Z',
  };
}

/** A claimed domain as the server lists it: pending (its TXT record not found yet) or verified. */
function claim(domain: string, status: 'pending' | 'verified' = 'pending'): SsoDomain {
  return {
    domain,
    status,
    txtName: `_enterprise-platform-challenge.${domain}`,
    txtValue: `enterprise-platform-verification=token-of-${domain}`,
    verifiedAt: status === 'verified' ? '2026-05-02T09:00:00Z' : undefined,
    verifiedBy: status === 'verified' ? 'dns' : undefined,
  };
}

function mockEnterprise(settings: SsoSettings, put?: (request: MockRequest) => Response, verify?: (request: MockRequest) => Response) {
  let saved = settings;
  let domains = settings.domains.map((domain) => claim(domain));
  return mockApi({
    [`GET ${base}/sso/domains`]: () => jsonResponse(200, domains),
    ...Object.fromEntries(
      settings.domains.map((domain) => [
        `POST ${base}/sso/domains/${domain}/verify`,
        (request: MockRequest) => {
          if (verify) return verify(request);
          domains = domains.map((d) =>
            d.domain === domain ? { ...claim(domain, 'verified'), verifiedBy: request.url.search.includes('approve=true') ? 'admin' : 'dns' } : d,
          );
          return jsonResponse(
            200,
            domains.find((d) => d.domain === domain),
          );
        },
      ]),
    ),
    [`GET ${base}`]: jsonResponse(200, detail),
    [`GET ${base}/departments`]: jsonResponse(200, detail.departments),
    [`GET ${base}/users`]: jsonResponse(200, page([])),
    [`GET ${base}/reports`]: jsonResponse(200, page([])),
    'GET /api/v1/users': jsonResponse(200, page([], 0, 1)),
    'GET /api/v1/dashboard/ceo': jsonResponse(500, { code: 'internal', message: 'x' }),
    [`GET ${base}/security-policy`]: () => jsonResponse(200, makeEnterpriseSecurityPolicy()),
    [`GET ${base}/exports`]: () => jsonResponse(200, []),
    [`GET ${base}/usage`]: () => jsonResponse(200, makeUsage()),
    [`GET ${base}/sso`]: () => jsonResponse(200, saved),
    [`PUT ${base}/sso`]: (request) => {
      if (put) return put(request);
      saved = savedFrom(request.body as SsoSettingsChange, saved);
      return jsonResponse(200, saved);
    },
    [`DELETE ${base}/sso`]: () => {
      saved = makeSsoSettings();
      return new Response(null, { status: 204 });
    },
  });
}

const card = () => screen.findByRole('region', { name: 'Single sign-on' });

const configured = makeSsoSettings({
  configured: true,
  issuer: 'https://idp.example',
  clientId: 'platform',
  clientSecretSet: true,
  domains: ['acme.example', 'acme-corp.example'],
  required: true,
  provisioning: 'just_in_time',
  breakGlassUserId: ceoId,
  breakGlassReady: false,
});

describe("an enterprise's single sign-on", () => {
  beforeEach(() => session.start('token', makeUser('PlatformAdmin')));

  it('is set up from its empty state (the admin): checked, sent, saved, and its redirect URI shown to register', async () => {
    const { calls } = mockEnterprise(makeSsoSettings());
    renderApp(`/admin/enterprises/${detail.id}`);
    const region = await card();
    expect(await within(region).findByText('Single sign-on is not set up.')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(within(region).getByRole('button', { name: 'Set up single sign-on' }));

    // Nothing filled in: each required field says so, and nothing is sent.
    await user.click(within(region).getByRole('button', { name: 'Save' }));
    expect(await within(region).findAllByText('This field is required')).toHaveLength(4);
    expect(within(region).getByRole('textbox', { name: /^Issuer URL/ })).toHaveFocus();

    const fill = async (field: HTMLElement, text: string) => {
      await user.click(field);
      await user.paste(text);
    };
    await fill(within(region).getByRole('textbox', { name: /^Issuer URL/ }), 'https://idp.example');
    await fill(within(region).getByRole('textbox', { name: /^Client ID/ }), 'platform');
    await fill(within(region).getByLabelText(/^Client secret/, { selector: 'input' }), 'platform-secret');
    // Domains as typed: each kept once, as the server keeps them (lower case, no @).
    const domains = within(region).getByLabelText(/^E-mail domains/, { selector: 'input' });
    await fill(domains, '@Acme.Example, acme.example');
    await user.type(domains, 'acme-corp.example{Enter}');
    // A new set-up makes accounts at the first sign-in unless told otherwise.
    expect(within(region).getByRole('radio', { name: 'Create their account at their first sign-in' })).toBeChecked();
    const department = within(region).getByRole('combobox', { name: 'Department of new accounts' });
    await user.click(department);
    await user.click((await selectOptions(department)).find((option) => option.textContent === 'Finance')!);
    expect(within(region).getByTestId('sso-redirect-uri')).toHaveTextContent('https://platform.example/sign-in/sso');
    expect(within(region).getByText('Register this redirect URI for the client at your identity provider.')).toBeInTheDocument();
    // Addresses must be verified by the provider unless the enterprise says its provider never says.
    const unverified = within(region).getByRole('switch', { name: 'The provider does not say whether addresses are verified' });
    expect(unverified).not.toBeChecked();
    await user.click(unverified);
    const twoStep = within(region).getByRole('switch', { name: 'Require two-step sign-in' });
    expect(twoStep).not.toBeChecked();
    await user.click(twoStep);
    await user.click(within(region).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Single sign-on settings saved')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({
      issuer: 'https://idp.example',
      clientId: 'platform',
      clientSecret: 'platform-secret',
      domains: ['acme.example', 'acme-corp.example'],
      required: false,
      provisioning: 'just_in_time',
      defaultRole: 'DepartmentUser',
      defaultDepartmentId: finance.id,
      acceptUnverifiedEmail: true,
      requireMfa: true,
    });
    // Saved: the secret is kept and never shown; leaving it empty keeps it.
    expect(await within(region).findByText('A secret is stored: leave empty to keep it.')).toBeInTheDocument();
    expect(within(region).getByText('On')).toBeInTheDocument();
    expect(within(region).getByLabelText(/^Client secret/, { selector: 'input' })).toHaveValue('');
  });

  it("shows the server's refusals under their fields: the issuer's reason in the screen's words, a domain another enterprise has", async () => {
    let answer = apiError(400, {
      code: 'validation_failed',
      reason: 'no_provider',
      message: 'No OpenID provider answers at this issuer URL (its discovery document could not be read)',
      fields: { issuer: 'invalid' },
    });
    mockEnterprise(configured, () => answer);
    renderApp(`/admin/enterprises/${detail.id}`);
    const region = await card();
    const user = userEvent.setup();
    const save = await within(region).findByRole('button', { name: 'Save' });
    await user.click(save);
    const issuer = within(region).getByRole('textbox', { name: /^Issuer URL/ });
    await waitFor(() => expect(issuer).toHaveAccessibleDescription(/No identity provider answers at this address: check the issuer URL\./));
    expect(issuer).toHaveFocus();
    // The server's own words wait behind a disclosure.
    const details = within(region).getByText('Details from the server');
    expect(within(region).getByText(/its discovery document could not be read/)).not.toBeVisible();
    await user.click(details);
    expect(within(region).getByText(/its discovery document could not be read/)).toBeVisible();
    expect(await screen.findByText('Could not save the single sign-on settings')).toBeInTheDocument();

    answer = apiError(409, { code: 'conflict', reason: 'sso_domain_taken', message: 'This domain is taken' });
    await user.click(save);
    expect(await within(region).findByText("One of these domains already signs in through another organisation's single sign-on")).toBeInTheDocument();
    // Typing in the issuer field took its refusal away.
    expect(issuer).not.toHaveAccessibleDescription(/No identity provider answers/);
  });

  it("says why an issuer is refused in French, and keeps the server's English words in the details, marked as English", async () => {
    await changeLocale('fr');
    mockEnterprise(configured, () =>
      apiError(400, {
        code: 'validation_failed',
        reason: 'untrusted_certificate',
        message: "The provider's certificate is not trusted: it is signed by an authority the server does not know",
        fields: { issuer: 'invalid' },
      }),
    );
    renderApp(`/admin/enterprises/${detail.id}`);
    const region = await screen.findByRole('region', { name: 'Authentification unique' });
    const user = userEvent.setup();
    await user.click(await within(region).findByRole('button', { name: 'Enregistrer' }));
    const issuer = within(region).getByRole('textbox', { name: /^URL de l'émetteur/ });
    await waitFor(() => expect(issuer).toHaveAccessibleDescription(/Le certificat du fournisseur n'est pas reconnu\./));
    expect(issuer).not.toHaveAccessibleDescription(/not trusted/);
    await user.click(within(region).getByText('Détails donnés par le serveur'));
    const words = within(region).getByText(/certificate is not trusted/);
    expect(words).toBeVisible();
    expect(words).toHaveAttribute('lang', 'en');
    await changeLocale('en');
  });

  it('warns when it is required and the break-glass CEO cannot sign in without the provider', async () => {
    mockEnterprise(configured);
    renderApp(`/admin/enterprises/${detail.id}`);
    const region = await card();
    expect(await within(region).findByText('Required')).toBeInTheDocument();
    expect(await within(region).findByTestId('sso-break-glass-warning')).toHaveTextContent('The break-glass CEO has not turned on two-step sign-in');
    expect(within(region).getByRole('combobox', { name: 'Break-glass account' })).toHaveValue('Cora Ceo · cora@acme.test');

    const user = userEvent.setup();
    await user.click(within(region).getByRole('switch', { name: 'Require single sign-on' }));
    expect(within(region).queryByTestId('sso-break-glass-warning')).not.toBeInTheDocument();
  });

  it('is removed after a confirmation that says what happens to its people', async () => {
    const { calls } = mockEnterprise(configured);
    renderApp(`/admin/enterprises/${detail.id}`);
    const region = await card();
    const user = userEvent.setup();
    await user.click(await within(region).findByRole('button', { name: 'Remove single sign-on' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove single sign-on?' });
    expect(within(dialog).getByTestId('remove-sso-confirmation')).toHaveTextContent(
      'People of acme.example, acme-corp.example will sign in with their passwords again.',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText('Single sign-on removed')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual([`${base}/sso`]);
    expect(await within(region).findByText('Single sign-on is not set up.')).toBeInTheDocument();
  });

  it('shows each domain pending until its TXT record is found, and the admin may approve one without it', async () => {
    let found = false;
    const { calls } = mockEnterprise(configured, undefined, (request) => {
      if (!found && !request.url.search.includes('approve=true')) {
        return apiError(400, { code: 'domain_not_verified', message: 'The TXT record was not found' });
      }
      const domain = request.url.pathname.includes('acme-corp') ? 'acme-corp.example' : 'acme.example';
      return jsonResponse(200, { ...claim(domain, 'verified'), verifiedBy: request.url.search.includes('approve=true') ? 'admin' : 'dns' });
    });
    renderApp(`/admin/enterprises/${detail.id}`);
    const region = await card();
    const proofs = await within(region).findByRole('region', { name: 'Domain ownership' });
    const rows = await within(proofs).findAllByTestId('sso-domain');
    expect(rows.map((row) => within(row).getByTestId('sso-domain-status').textContent)).toEqual(['Awaiting proof', 'Awaiting proof']);
    expect(within(rows[0]).getByTestId('sso-domain-txt-name')).toHaveTextContent('_enterprise-platform-challenge.acme.example');
    expect(within(rows[0]).getByTestId('sso-domain-txt-value')).toHaveTextContent('enterprise-platform-verification=token-of-acme.example');

    const user = userEvent.setup();
    await user.click(within(rows[0]).getByRole('button', { name: 'Check the record of acme.example' }));
    expect(await screen.findByText('acme.example is not verified yet')).toBeInTheDocument();
    expect(screen.getByText(/No TXT record with the expected value was found at _enterprise-platform-challenge.acme.example/)).toBeInTheDocument();

    found = true;
    await user.click(within(rows[0]).getByRole('button', { name: 'Check the record of acme.example' }));
    expect(await screen.findByText('acme.example is verified: its people now sign in through your provider.')).toBeInTheDocument();

    // The admin's approval, asked for first.
    await user.click(within(rows[1]).getByRole('button', { name: 'Approve without a record' }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve this domain?' });
    expect(dialog).toHaveTextContent('acme-corp.example will send its people to this enterprise');
    await user.click(within(dialog).getByRole('button', { name: 'Approve without a record' }));
    await waitFor(() =>
      expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([
        `${base}/sso/domains/acme.example/verify`,
        `${base}/sso/domains/acme.example/verify`,
        `${base}/sso/domains/acme-corp.example/verify?approve=true`,
      ]),
    );
  });

  it('offers the CEO no approval of their own domains, and says it in French', async () => {
    await changeLocale('fr');
    session.start('token', makeUser('EnterpriseCeo', { enterpriseId: detail.id }));
    mockEnterprise(configured);
    renderApp('/ceo');
    const region = await screen.findByRole('region', { name: 'Authentification unique' });
    const proofs = await within(region).findByRole('region', { name: 'Propriété des domaines' });
    const rows = await within(proofs).findAllByTestId('sso-domain');
    expect(within(rows[0]).getByTestId('sso-domain-status')).toHaveTextContent('En attente de preuve');
    expect(within(proofs).getAllByRole('button', { name: /^Vérifier l'enregistrement de/ })).toHaveLength(2);
    expect(within(proofs).queryByRole('button', { name: 'Approuver sans enregistrement' })).not.toBeInTheDocument();
    await changeLocale('en');
  });

  it("is on the CEO's home, in French too", async () => {
    await changeLocale('fr');
    session.start('token', makeUser('EnterpriseCeo', { enterpriseId: detail.id }));
    mockEnterprise(makeSsoSettings());
    renderApp('/ceo');
    const region = await screen.findByRole('region', { name: 'Authentification unique' });
    expect(await within(region).findByText("L'authentification unique n'est pas configurée.")).toBeInTheDocument();
    await userEvent.setup().click(within(region).getByRole('button', { name: "Configurer l'authentification unique" }));
    expect(within(region).getByRole('textbox', { name: /^URL de l'émetteur/ })).toBeInTheDocument();
    expect(within(region).getByRole('radio', { name: "N'accepter que les personnes déjà invitées" })).not.toBeChecked();
    await changeLocale('en');
  });
});
