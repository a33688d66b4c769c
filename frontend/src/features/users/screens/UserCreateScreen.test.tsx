import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse, makeDepartments, makeEnterprise, makeInvitedUser, makeUser, page, serverErrors } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';
import { optionNames, selectOptions } from '@/testing/select';

const enterprise = makeEnterprise({ name: 'Acme Corp' });
const departments = makeDepartments(enterprise.id);

function mockCreate() {
  return mockApi({
    'GET /api/v1/enterprises': jsonResponse(200, page([enterprise, makeEnterprise({ id: 'other', name: 'Beta Inc' })])),
    [`GET /api/v1/enterprises/${enterprise.id}/departments`]: jsonResponse(200, departments),
    'POST /api/v1/users': ({ body }) => jsonResponse(201, makeUser('DepartmentHead', { fullName: (body as { fullName: string }).fullName })),
    'GET /api/v1/users': jsonResponse(200, page([])),
  });
}

/** Fills in the account; with a password (set now) unless `invite`, the default choice, is kept. */
async function fillAccount(name = 'Hal Jordan', { invite = false } = {}) {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText(/^Full name/), name);
  await user.type(screen.getByLabelText(/^Email/), 'hal@acme.test');
  if (!invite) {
    await user.click(screen.getByRole('radio', { name: 'Set a password now' }));
    await user.type(screen.getByLabelText(/^Password/), 'password1');
  }
  return user;
}

describe('create a user', () => {
  it('as a CEO: department staff roles only, in their own enterprise, with an optional department', async () => {
    session.start('token', makeUser('EnterpriseCeo'));
    const { calls } = mockCreate();
    const { location } = renderApp('/admin/users/create');
    await screen.findByRole('heading', { level: 1, name: 'Create a user' });
    const user = await fillAccount();

    expect(screen.queryByRole('combobox', { name: /^Enterprise/ })).not.toBeInTheDocument();
    const role = screen.getByRole('combobox', { name: /^Role/ });
    await user.click(role);
    expect(await optionNames(role)).toEqual(['Department head', 'Department user']);
    await user.click((await selectOptions(role))[0]);

    const department = screen.getByRole('combobox', { name: /^Department/ });
    await waitFor(() => expect(department).toBeEnabled());
    await user.click(department);
    expect(await optionNames(department)).toEqual(['Finance', 'Operations', 'Sales and marketing', 'Human resources', 'Information technology']);
    await user.click((await selectOptions(department))[1]);

    await user.click(screen.getByRole('button', { name: 'Create user' }));
    expect(await screen.findByText('User Hal Jordan created successfully')).toBeInTheDocument();
    await waitFor(() => expect(location().pathname).toBe('/admin/users'));
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      fullName: 'Hal Jordan',
      email: 'hal@acme.test',
      password: 'password1',
      locale: 'en',
      role: 'DepartmentHead',
      departmentId: departments.find((d) => d.type === 'operations')!.id,
    });
  });

  it('invites by default: no password is sent, the language chosen for their e-mails is, and the notification names the address', async () => {
    session.start('token', makeUser('EnterpriseCeo'));
    const { calls } = mockApi({
      [`GET /api/v1/enterprises/${enterprise.id}/departments`]: jsonResponse(200, departments),
      'POST /api/v1/users': ({ body }) => jsonResponse(201, makeInvitedUser('DepartmentUser', { ...(body as object), id: 'new-user' })),
      'GET /api/v1/users': jsonResponse(200, page([])),
    });
    const { location } = renderApp('/admin/users/create');
    await screen.findByRole('heading', { level: 1, name: 'Create a user' });
    const user = await fillAccount('Hal Jordan', { invite: true });

    expect(screen.getByRole('radio', { name: 'Send an invitation by e-mail' })).toBeChecked();
    expect(screen.queryByLabelText(/^Password/)).not.toBeInTheDocument();
    const language = screen.getByRole('combobox', { name: /^Language of their e-mails/ });
    await user.click(language);
    expect(await optionNames(language)).toEqual(['English', 'Français']);
    await user.click((await selectOptions(language))[1]);

    await user.click(screen.getByRole('button', { name: 'Create user' }));
    expect(await screen.findByText('Hal Jordan was created: an invitation was sent to hal@acme.test')).toBeInTheDocument();
    await waitFor(() => expect(location().pathname).toBe('/admin/users'));
    const sent = calls.find((call) => call.method === 'POST')?.body as Record<string, unknown>;
    expect(sent).toEqual({ fullName: 'Hal Jordan', email: 'hal@acme.test', locale: 'fr', role: 'DepartmentUser' });
    expect(sent).not.toHaveProperty('password');
  });

  it('as the admin: the enterprise is required for tenant roles and hidden for an administrator', async () => {
    session.start('token', makeUser('PlatformAdmin'));
    const { calls } = mockCreate();
    renderApp('/admin/users/create');
    await screen.findByRole('heading', { level: 1, name: 'Create a user' });
    const user = await fillAccount('Cora Ceo');

    await user.click(screen.getByRole('button', { name: 'Create user' }));
    expect(screen.getByText('This field is required')).toBeInTheDocument(); // the role

    const role = screen.getByRole('combobox', { name: /^Role/ });
    await user.click(role);
    expect(await optionNames(role)).toEqual(['Platform Administrator', 'CEO', 'Department head', 'Department user']);
    await user.click((await selectOptions(role))[1]);
    expect(screen.queryByRole('combobox', { name: /^Department/ })).not.toBeInTheDocument(); // a CEO has none

    await user.click(screen.getByRole('button', { name: 'Create user' }));
    const enterpriseField = screen.getByRole('combobox', { name: /^Enterprise/ });
    expect(within(enterpriseField.closest('.mantine-InputWrapper-root') as HTMLElement).getByText('This field is required')).toBeInTheDocument();
    await user.click(enterpriseField);
    expect(await optionNames(enterpriseField)).toEqual(['Acme Corp', 'Beta Inc']);
    await user.click((await selectOptions(enterpriseField))[0]);
    await user.click(screen.getByRole('button', { name: 'Create user' }));

    await screen.findByText('User Cora Ceo created successfully');
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      fullName: 'Cora Ceo',
      email: 'hal@acme.test',
      password: 'password1',
      locale: 'en',
      role: 'EnterpriseCeo',
      enterpriseId: enterprise.id,
    });
  });

  it('shows a taken e-mail address on the field', async () => {
    session.start('token', makeUser('EnterpriseCeo'));
    mockApi({
      [`GET /api/v1/enterprises/${enterprise.id}/departments`]: jsonResponse(200, departments),
      'POST /api/v1/users': serverErrors.emailTaken('email'),
    });
    renderApp('/admin/users/create');
    await screen.findByRole('heading', { level: 1, name: 'Create a user' });
    const user = await fillAccount();
    await user.click(screen.getByRole('button', { name: 'Create user' }));

    expect(await screen.findByText('Failed to create user')).toBeInTheDocument();
    expect(screen.getAllByText('This email address cannot be used. Choose another one.')).toHaveLength(2); // toast and field
    expect(screen.getByLabelText(/^Email/)).toHaveFocus();
  });
});

describe('create a user past the enterprise’s limit', () => {
  it('says the limit of people is reached, not that the address is taken, and keeps the form', async () => {
    session.start('token', makeUser('EnterpriseCeo'));
    mockApi({
      [`GET /api/v1/enterprises/${enterprise.id}/departments`]: jsonResponse(200, departments),
      'POST /api/v1/users': jsonResponse(409, { code: 'limit_reached', message: 'The enterprise has as many people as its limit allows', limit: 'people' }),
      'GET /api/v1/users': jsonResponse(200, page([])),
    });
    const { location } = renderApp('/admin/users/create');
    await screen.findByRole('heading', { level: 1, name: 'Create a user' });
    const user = await fillAccount();
    await user.click(screen.getByRole('button', { name: 'Create user' }));
    expect(await screen.findByText(/^Your enterprise has as many people as its limit allows\./)).toBeInTheDocument();
    expect(screen.queryByText('This email address cannot be used. Choose another one.')).not.toBeInTheDocument();
    expect(screen.getByLabelText(/^Email/)).not.toHaveAttribute('aria-invalid', 'true');
    expect(location().pathname).toBe('/admin/users/create');
  });
});
