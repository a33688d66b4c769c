import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { SsoSettings, SsoSettingsChange } from '@/api/generated/model';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { type MockRequest, mockApi } from '@/testing/api-mock';
import { apiError, jsonResponse, makeEnterpriseDetail, makeEnterpriseSecurityPolicy, makeSsoSettings, makeUser, page } from '@/testing/fixtures';
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
    updatedAt: '2026-05-01T10:00:00Z',
  };
}

function mockEnterprise(settings: SsoSettings, put?: (request: MockRequest) => Response) {
  let saved = settings;
  return mockApi({
    [`GET ${base}`]: jsonResponse(200, detail),
    [`GET ${base}/departments`]: jsonResponse(200, detail.departments),
    [`GET ${base}/users`]: jsonResponse(200, page([])),
    [`GET ${base}/reports`]: jsonResponse(200, page([])),
    'GET /api/v1/users': jsonResponse(200, page([], 0, 1)),
    'GET /api/v1/dashboard/ceo': jsonResponse(500, { code: 'internal', message: 'x' }),
    [`GET ${base}/security-policy`]: () => jsonResponse(200, makeEnterpriseSecurityPolicy()),
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
    });
    // Saved: the secret is kept and never shown; leaving it empty keeps it.
    expect(await within(region).findByText('A secret is stored: leave empty to keep it.')).toBeInTheDocument();
    expect(within(region).getByText('On')).toBeInTheDocument();
    expect(within(region).getByLabelText(/^Client secret/, { selector: 'input' })).toHaveValue('');
  });

  it("shows the server's refusals under their fields: the issuer's explanation, a domain another enterprise has", async () => {
    let answer = apiError(400, {
      code: 'validation_failed',
      message: 'The discovery document of https://idp.example could not be read',
      fields: { issuer: 'invalid' },
    });
    mockEnterprise(configured, () => answer);
    renderApp(`/admin/enterprises/${detail.id}`);
    const region = await card();
    const user = userEvent.setup();
    const save = await within(region).findByRole('button', { name: 'Save' });
    await user.click(save);
    const issuer = within(region).getByRole('textbox', { name: /^Issuer URL/ });
    await waitFor(() =>
      expect(issuer).toHaveAccessibleDescription(/This issuer cannot be used: The discovery document of https:\/\/idp.example could not be read/),
    );
    expect(issuer).toHaveFocus();
    expect(await screen.findByText('Could not save the single sign-on settings')).toBeInTheDocument();

    answer = apiError(409, { code: 'conflict', reason: 'sso_domain_taken', message: 'This domain is taken' });
    await user.click(save);
    expect(await within(region).findByText("One of these domains already signs in through another organisation's single sign-on")).toBeInTheDocument();
    // Typing in the issuer field took its refusal away.
    expect(issuer).not.toHaveAccessibleDescription(/This issuer cannot be used/);
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
