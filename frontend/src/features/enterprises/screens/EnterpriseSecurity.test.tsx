import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { EnterpriseSecurityPolicy, EnterpriseSecurityPolicyChange } from '@/api/generated/model';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse, makeEnterpriseDetail, makeEnterpriseSecurityPolicy, makeSsoSettings, makeUser, page, makeUsage } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const detail = makeEnterpriseDetail({ name: 'Acme Corp' });
const base = `/api/v1/enterprises/${detail.id}`;

function mockEnterprise(policy: EnterpriseSecurityPolicy) {
  let saved = policy;
  return mockApi({
    [`GET ${base}`]: jsonResponse(200, detail),
    [`GET ${base}/departments`]: jsonResponse(200, detail.departments),
    [`GET ${base}/users`]: jsonResponse(200, page([])),
    [`GET ${base}/reports`]: jsonResponse(200, page([])),
    'GET /api/v1/users': jsonResponse(200, page([], 0, 1)),
    'GET /api/v1/dashboard/ceo': jsonResponse(500, { code: 'internal', message: 'x' }),
    [`GET ${base}/security-policy`]: () => jsonResponse(200, saved),
    [`GET ${base}/exports`]: () => jsonResponse(200, []),
    [`GET ${base}/usage`]: () => jsonResponse(200, makeUsage()),
    [`GET ${base}/sso`]: () => jsonResponse(200, makeSsoSettings()),
    [`PUT ${base}/security-policy`]: ({ body }) => {
      saved = { ...saved, mfaRequiredRoles: (body as EnterpriseSecurityPolicyChange).mfaRequiredRoles ?? null };
      return jsonResponse(200, saved);
    },
  });
}

const card = () => screen.findByRole('region', { name: 'Security' });

describe("an enterprise's security policy", () => {
  beforeEach(() => session.start('token', makeUser('PlatformAdmin')));

  it('follows the platform default (named), or requires two steps for the roles chosen (the admin)', async () => {
    const { calls } = mockEnterprise(makeEnterpriseSecurityPolicy({ platformDefault: ['PlatformAdmin', 'EnterpriseCeo'] }));
    renderApp(`/admin/enterprises/${detail.id}`);
    const region = await card();
    const followDefault = await within(region).findByRole('radio', { name: 'Follow the platform default (CEO)' });
    expect(followDefault).toBeChecked();
    expect(within(region).queryByRole('checkbox')).not.toBeInTheDocument();

    const user = userEvent.setup();
    await user.click(within(region).getByRole('radio', { name: "Use this enterprise's own rule" }));
    // Starts from the default's tenant roles.
    expect(within(region).getByRole('checkbox', { name: 'CEO' })).toBeChecked();
    await user.click(within(region).getByRole('checkbox', { name: 'CEO' }));
    await user.click(within(region).getByRole('checkbox', { name: 'Department staff' }));
    await user.click(within(region).getByRole('checkbox', { name: 'Department heads' }));
    await user.click(within(region).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Security settings saved')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ mfaRequiredRoles: ['DepartmentHead', 'DepartmentUser'] });

    await user.click(within(region).getByRole('radio', { name: /^Follow the platform default/ }));
    await user.click(within(region).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.filter((call) => call.method === 'PUT').at(-1)?.body).toEqual({ mfaRequiredRoles: null }));
  });

  it("is on the CEO's home, in French too", async () => {
    await changeLocale('fr');
    session.start('token', makeUser('EnterpriseCeo', { enterpriseId: detail.id }));
    mockEnterprise(makeEnterpriseSecurityPolicy({ mfaRequiredRoles: ['DepartmentUser'] }));
    renderApp('/ceo');
    const region = await screen.findByRole('region', { name: 'Sécurité' });
    expect(await within(region).findByRole('radio', { name: 'Utiliser une règle propre à cette entreprise' })).toBeChecked();
    expect(within(region).getByRole('radio', { name: 'Suivre la règle par défaut de la plateforme (personne)' })).not.toBeChecked();
    expect(within(region).getByRole('checkbox', { name: 'Personnel des départements' })).toBeChecked();
    expect(within(region).getByRole('checkbox', { name: 'Chefs de département' })).not.toBeChecked();
    await changeLocale('en');
  });
});
