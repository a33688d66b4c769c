import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ApiToken, CreateApiToken } from '@/api/generated/model';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import {
  jsonResponse,
  makeApiToken,
  makeCreatedApiToken,
  makeEnterpriseDetail,
  makeEnterpriseSecurityPolicy,
  makeSsoSettings,
  makeUser,
  page,
  makeUsage,
} from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const detail = makeEnterpriseDetail({ name: 'Acme Corp' });
const base = `/api/v1/enterprises/${detail.id}`;
const ceo = makeUser('EnterpriseCeo', { fullName: 'Cora Ceo', enterpriseId: detail.id });
const admin = makeUser('PlatformAdmin', { fullName: 'Ada Admin' });
const warehouse = makeApiToken({
  id: '0190f3c2-0000-7000-8000-0000000007b1',
  name: 'Warehouse sync',
  prefix: 'eps_Q7mWx',
  scopes: ['reports:read', 'users:read'],
  enterpriseId: detail.id,
});
const SECRET = 'eps_Q7mWxNeWsErViCeSeCrEt_0123456789abcdefghijk';

/** The enterprise's service credentials as the server keeps them. */
function serviceTokenAnswers(initial: ApiToken[]) {
  let tokens = [...initial];
  let provisioning = { scimDeletion: 'delete' };
  return {
    [`GET ${base}/provisioning`]: () => jsonResponse(200, provisioning),
    [`PUT ${base}/provisioning`]: ({ body }: { body: unknown }) => {
      provisioning = body as typeof provisioning;
      return jsonResponse(200, provisioning);
    },
    [`GET ${base}/service-tokens`]: () => jsonResponse(200, page(tokens)),
    [`POST ${base}/service-tokens`]: ({ body }: { body: unknown }) => {
      const { name, scopes, expiresAt } = body as CreateApiToken;
      const created = makeCreatedApiToken({
        id: '0190f3c2-0000-7000-8000-0000000007b9',
        name,
        scopes,
        expiresAt: expiresAt ?? '',
        prefix: 'eps_NeWsE',
        enterpriseId: detail.id,
        token: SECRET,
      });
      const { token: _secret, ...listed } = created;
      tokens = [listed, ...tokens];
      return jsonResponse(201, created);
    },
    [`DELETE ${base}/service-tokens/${warehouse.id}`]: () => {
      tokens = tokens.filter((token) => token.id !== warehouse.id);
      return new Response(null, { status: 204 });
    },
    // The webhooks beside them (IntegrationsScreen.webhooks.test.tsx): none.
    'GET /api/v1/webhooks': () => jsonResponse(200, page([])),
  };
}

describe('integrations (service credentials)', () => {
  it("the CEO's: in the sidebar, listing their enterprise's credentials; a new one is shown once, with a request its scopes allow", async () => {
    const { calls } = mockApi(serviceTokenAnswers([warehouse]));
    session.start('token', ceo);
    const user = userEvent.setup();
    const { location } = renderApp('/no-such-page');

    const nav = await screen.findByRole('navigation', { name: 'Main navigation' });
    await user.click(within(nav).getByRole('link', { name: 'Integrations' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Integrations' })).toBeInTheDocument();
    expect(location().pathname).toBe('/ceo/integrations');
    expect(await screen.findByText('Warehouse sync')).toBeInTheDocument();
    expect(screen.getByTestId('token-prefix')).toHaveTextContent('eps_Q7mWx…');
    expect(calls.map((call) => call.path)).toContain(`${base}/service-tokens?page=1&pageSize=20`);

    await user.click(screen.getByRole('button', { name: 'New credential' }));
    const form = await screen.findByRole('dialog', { name: 'New service credential' });
    expect(form).toHaveTextContent("A credential never does more than the enterprise's CEO may do.");
    await user.type(within(form).getByLabelText(/^Name/), 'BI dashboard');
    await user.click(within(form).getByRole('checkbox', { name: 'Reports: read' }));
    await user.click(within(form).getByRole('button', { name: 'Create' }));

    const secret = await screen.findByRole('dialog', { name: 'Copy the new token' });
    expect(within(secret).getByTestId('token-secret')).toHaveTextContent(SECRET);
    // A service credential is no person (no /auth/me): the example reads the enterprise's reports.
    expect(within(secret).getByTestId('token-example')).toHaveTextContent(`curl -H "Authorization: Bearer ${SECRET}" ${window.location.origin}${base}/reports`);
    const post = calls.find((call) => call.method === 'POST')!;
    expect(post.path).toBe(`${base}/service-tokens`);
    expect((post.body as CreateApiToken).scopes).toEqual(['reports:read']);
    await user.click(within(secret).getByRole('button', { name: 'Done' }));
    expect(await screen.findByText('BI dashboard')).toBeInTheDocument();
    expect(document.body).not.toHaveTextContent(SECRET);
  });

  it("the admin's: from the enterprise's page, for that enterprise, with a way back; revoking asks first", async () => {
    const { calls } = mockApi({
      [`GET ${base}`]: jsonResponse(200, detail),
      [`GET ${base}/departments`]: jsonResponse(200, detail.departments),
      [`GET ${base}/users`]: jsonResponse(200, page([])),
      [`GET ${base}/reports`]: jsonResponse(200, page([])),
      'GET /api/v1/enterprises': jsonResponse(200, page([])),
      [`GET ${base}/security-policy`]: jsonResponse(200, makeEnterpriseSecurityPolicy()),
      [`GET ${base}/exports`]: jsonResponse(200, []),
      [`GET ${base}/usage`]: () => jsonResponse(200, makeUsage()),
      [`GET ${base}/sso`]: () => jsonResponse(200, makeSsoSettings()),
      ...serviceTokenAnswers([warehouse]),
    });
    session.start('token', admin);
    const user = userEvent.setup();
    const { location } = renderApp(`/admin/enterprises/${detail.id}`);

    const section = (await screen.findByRole('heading', { level: 2, name: 'Integrations' })).closest('section')!;
    await user.click(within(section).getByRole('link', { name: 'Manage integrations' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Integrations: Acme Corp' })).toBeInTheDocument();
    expect(location().pathname).toBe(`/admin/enterprises/${detail.id}/integrations`);
    expect(screen.getByRole('link', { name: 'Back to the enterprise' })).toHaveAttribute('href', `/admin/enterprises/${detail.id}`);

    await user.click(await screen.findByRole('button', { name: 'Revoke Warehouse sync' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke this token?' });
    expect(dialog).toHaveTextContent('Programs that use “Warehouse sync” (eps_Q7mWx…) are refused from now on.');
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    expect(await screen.findByText('“Warehouse sync” was revoked.')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual([`${base}/service-tokens/${warehouse.id}`]);
    expect(await screen.findByText('No service credentials yet')).toBeInTheDocument();
  });

  it("the CEO chooses what their directory's deletions do: erasure, saved, the save button idle until something changes", async () => {
    const { calls } = mockApi(serviceTokenAnswers([]));
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/ceo/integrations');
    const card = await screen.findByRole('region', { name: 'When your directory deletes someone' });
    const deletes = await within(card).findByRole('radio', { name: 'Deletes their account' });
    expect(deletes).toBeChecked();
    const save = within(card).getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    await user.click(within(card).getByRole('radio', { name: 'Erases their personal data' }));
    expect(save).toBeEnabled();
    await user.click(save);
    expect(await screen.findByText('Directory settings saved')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ scimDeletion: 'erase' });
    expect(within(card).getByRole('radio', { name: 'Erases their personal data' })).toBeChecked();
    expect(within(card).getByRole('button', { name: 'Save' })).toBeDisabled();
  });
});
