import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse, makeUser, serverErrors } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

beforeEach(() => session.start('token', makeUser('PlatformAdmin')));

describe("the platform's security policy", () => {
  it('is on the admin dashboard: every role, explained as the default of enterprises without their own', async () => {
    const { calls } = mockApi({
      'GET /api/v1/admin/dashboard': serverErrors.internal(),
      'GET /api/v1/admin/statistics': serverErrors.internal(),
      'GET /api/v1/enterprises/usage': serverErrors.internal(),
      'GET /api/v1/platform/security-policy': jsonResponse(200, { mfaRequiredRoles: ['PlatformAdmin'] }),
      'PUT /api/v1/platform/security-policy': ({ body }) => jsonResponse(200, body),
    });
    renderApp('/admin');
    const region = await screen.findByRole('region', { name: 'Security' });
    const admins = await within(region).findByRole('checkbox', { name: 'Platform administrators' });
    expect(region).toHaveTextContent('it is the default: it applies to every enterprise without a rule of its own');
    expect(admins).toBeChecked();
    expect(
      within(region)
        .getAllByRole('checkbox')
        .map((box) => box.getAttribute('value')),
    ).toEqual(['PlatformAdmin', 'EnterpriseCeo', 'DepartmentHead', 'DepartmentUser']);

    const user = userEvent.setup();
    await user.click(within(region).getByRole('checkbox', { name: 'Department staff' }));
    await user.click(within(region).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Security settings saved')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ mfaRequiredRoles: ['PlatformAdmin', 'DepartmentUser'] });
  });
});
