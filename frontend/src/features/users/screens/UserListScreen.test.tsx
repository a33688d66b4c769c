import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { User } from '@/api/generated/model';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { apiError, jsonResponse, makeDepartments, makeEnterprise, makeInvitedUser, makeUser, page } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';
import { optionNames } from '@/testing/select';

const enterprise = makeEnterprise({ name: 'Acme Corp' });
const departments = makeDepartments(enterprise.id);
const admin = makeUser('PlatformAdmin', { id: 'admin', fullName: 'Ada Admin', enterpriseId: null });
const ceo = makeUser('EnterpriseCeo', { id: 'ceo', fullName: 'Cora Ceo', enterpriseId: enterprise.id });
const hal = makeUser('DepartmentUser', {
  id: 'hal',
  fullName: 'Hal Jordan',
  email: 'hal@acme.test',
  enterpriseId: enterprise.id,
  departmentId: departments[0].id,
  lastLogin: '2026-03-01T12:00:00Z',
});

function mockUsers(users: User[]) {
  return mockApi({
    'GET /api/v1/users': jsonResponse(200, page(users)),
    'GET /api/v1/enterprises': jsonResponse(200, page([enterprise])),
    [`GET /api/v1/enterprises/${enterprise.id}/departments`]: jsonResponse(200, departments),
    'DELETE /api/v1/users/hal': new Response(null, { status: 204 }),
    'PUT /api/v1/users/hal': ({ body }) => jsonResponse(200, { ...hal, ...(body as Partial<User>) } satisfies User),
  });
}

const row = (name: string) => screen.getAllByTestId('user-row').find((tr) => tr.textContent?.includes(name))!;

describe('the user list', () => {
  it('shows role, enterprise, status and last sign-in, and filters through the URL', async () => {
    const { calls } = mockUsers([admin, ceo, hal]);
    session.start('token', admin);
    const user = userEvent.setup();
    const { location } = renderApp('/admin/users');

    await screen.findByText('Hal Jordan');
    const halRow = row('Hal Jordan');
    expect(halRow).toHaveTextContent('Department user');
    expect(halRow).toHaveTextContent('Active');
    expect(halRow).toHaveTextContent('Mar 1, 2026');
    expect(await within(halRow).findByRole('link', { name: 'Acme Corp' })).toHaveAttribute('href', `/admin/enterprises/${enterprise.id}`);
    expect(row('Ada Admin')).toHaveTextContent('Platform (no enterprise)');

    await user.type(screen.getByLabelText('Search'), 'hal');
    await waitFor(() => expect(location().search).toBe('?q=hal'));
    await waitFor(() => expect(calls.map((call) => call.path)).toContain('/api/v1/users?q=hal&page=1&pageSize=20'));

    const role = screen.getByRole('combobox', { name: 'Role' });
    await user.click(role);
    expect(await optionNames(role)).toEqual(['Platform Administrator', 'CEO', 'Department head', 'Department user']);
  });

  it('asks before deleting, naming the person; nobody deletes themselves', async () => {
    const { calls } = mockUsers([admin, hal]);
    session.start('token', admin);
    const user = userEvent.setup();
    renderApp('/admin/users');

    await user.click(await screen.findByRole('button', { name: 'Actions for Ada Admin' }));
    expect(await screen.findByRole('menuitem', { name: 'Edit' })).toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: 'Delete' })).not.toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: 'Deactivate' })).not.toBeInTheDocument();
    await user.keyboard('{Escape}');
    // Let the first menu finish closing: a click during its exit transition only closes it.
    await waitFor(() => expect(screen.queryByRole('menu')).not.toBeInTheDocument());

    await user.click(screen.getByRole('button', { name: 'Actions for Hal Jordan' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete user' });
    expect(dialog).toHaveTextContent('Are you sure you want to delete the user Hal Jordan (hal@acme.test)?');
    expect(dialog).toHaveTextContent('This action cannot be undone.');
    await user.click(within(dialog).getByRole('button', { name: 'Delete user' }));

    expect(await screen.findByText('The user Hal Jordan was deleted')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual(['/api/v1/users/hal']);
  });

  it('erases a person after saying what goes and what stays, then reports what the server did; an erased person offers nothing to change', async () => {
    const erased = makeUser('DepartmentUser', { ...hal, fullName: 'Former member #1', email: null, erased: true, status: 'inactive' });
    let listed: User[] = [admin, hal];
    const { calls } = mockApi({
      'GET /api/v1/users': () => jsonResponse(200, page(listed)),
      'GET /api/v1/enterprises': jsonResponse(200, page([enterprise])),
      'POST /api/v1/users/hal/erasure': () => {
        listed = [admin, erased];
        return jsonResponse(200, { removed: ['name', 'email', 'messages'], kept: ['reports', 'audit_entries'] });
      },
    });
    session.start('token', admin);
    const user = userEvent.setup();
    renderApp('/admin/users');

    await user.click(await screen.findByRole('button', { name: 'Actions for Hal Jordan' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Erase personal data' }));
    const dialog = await screen.findByRole('dialog', { name: "Erase this person's data?" });
    expect(dialog).toHaveTextContent('Erase the personal data of Hal Jordan? They will appear as “Former member” followed by a number.');
    expect(dialog).toHaveTextContent('the messages they sent');
    expect(dialog).toHaveTextContent('their reports, with their review history');
    expect(dialog).toHaveTextContent('This action cannot be undone.');
    expect(calls.some((call) => call.path.endsWith('/erasure'))).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Erase' }));

    const result = await screen.findByRole('dialog', { name: 'Personal data erased' });
    expect(result).toHaveTextContent('Hal Jordan now appears as a former member.');
    expect(
      within(result)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'their name',
      'their e-mail address',
      'the messages they sent',
      'their reports, with their review history',
      "the audit log's entries about them, under the pseudonym, without their address or browser",
    ]);
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual(['/api/v1/users/hal/erasure']);
    await user.keyboard('{Escape}');

    const gone = await screen.findByText('Former member #1');
    const erasedRow = row('Former member #1');
    expect(erasedRow).toHaveTextContent('No e-mail address (erased)');
    expect(erasedRow).toHaveTextContent('Erased');
    expect(gone).toBeInTheDocument();
    await user.click(within(erasedRow).getByRole('button', { name: 'Actions for Former member #1' }));
    expect(await screen.findByRole('menuitem', { name: 'Audit log' })).toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: 'Edit' })).not.toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: 'Erase personal data' })).not.toBeInTheDocument();
  });

  it('says an erasure in French', async () => {
    mockUsers([admin, hal]);
    session.start('token', admin);
    await act(() => changeLocale('fr'));
    const user = userEvent.setup();
    renderApp('/admin/users');

    await user.click(await screen.findByRole('button', { name: 'Actions pour Hal Jordan' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Effacer les données personnelles' }));
    const dialog = await screen.findByRole('dialog', { name: 'Effacer les données de cette personne ?' });
    expect(dialog).toHaveTextContent("Cette personne apparaîtra comme « Ancien membre » suivi d'un numéro.");
    expect(dialog).toHaveTextContent('Cette action est irréversible.');
    expect(within(dialog).getByRole('button', { name: 'Effacer' })).toBeInTheDocument();
  });

  it('shows who signs in with two steps, and a CEO resets it for their staff after confirming', async () => {
    const halWithApp = { ...hal, mfaEnabled: true };
    const dee = makeUser('DepartmentHead', { id: 'dee', fullName: 'Dee Head', enterpriseId: enterprise.id, departmentId: departments[1].id });
    const { calls } = mockApi({
      'GET /api/v1/users': jsonResponse(200, page([halWithApp, dee])),
      [`GET /api/v1/enterprises/${enterprise.id}/departments`]: jsonResponse(200, departments),
      'DELETE /api/v1/users/hal/mfa': new Response(null, { status: 204 }),
    });
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/admin/users');

    await screen.findByText('Hal Jordan');
    expect(within(row('Hal Jordan')).getByTestId('mfa-badge')).toHaveTextContent('2-step');
    expect(within(row('Dee Head')).queryByTestId('mfa-badge')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Actions for Dee Head' }));
    expect(await screen.findByRole('menuitem', { name: 'Edit' })).toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: 'Reset two-step sign-in' })).not.toBeInTheDocument();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('menu')).not.toBeInTheDocument());

    await user.click(screen.getByRole('button', { name: 'Actions for Hal Jordan' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Reset two-step sign-in' }));
    const dialog = await screen.findByRole('dialog', { name: 'Reset two-step sign-in?' });
    expect(dialog).toHaveTextContent('Remove the authenticator app and recovery codes of Hal Jordan (hal@acme.test)?');
    expect(dialog).toHaveTextContent('Their sessions end now.');
    await user.click(within(dialog).getByRole('button', { name: 'Reset' }));

    expect(await screen.findByText('Two-step sign-in of Hal Jordan was reset')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual(['/api/v1/users/hal/mfa']);
  });

  it('asks before deactivating someone', async () => {
    const { calls } = mockUsers([hal]);
    session.start('token', admin);
    const user = userEvent.setup();
    renderApp('/admin/users');

    await user.click(await screen.findByRole('button', { name: 'Actions for Hal Jordan' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Deactivate' }));
    const dialog = await screen.findByRole('dialog', { name: 'Deactivate this account?' });
    expect(dialog).toHaveTextContent('They are signed out at once');
    await user.click(within(dialog).getByRole('button', { name: 'Deactivate' }));
    expect(await screen.findByText('Hal Jordan was deactivated.')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ status: 'inactive' });
  });

  it('as a CEO: staff roles only, departments instead of enterprises, and an edit that sends only the changes', async () => {
    const { calls } = mockUsers([hal]);
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/admin/users');

    await screen.findByText('Hal Jordan');
    expect(screen.getByRole('columnheader', { name: 'Department' })).toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: 'Enterprise' })).not.toBeInTheDocument();
    await waitFor(() => expect(row('Hal Jordan')).toHaveTextContent('Finance'));

    await user.click(screen.getByRole('button', { name: 'Actions for Hal Jordan' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Hal Jordan' });
    const role = within(dialog).getByRole('combobox', { name: 'Role' });
    await user.click(role);
    expect(await optionNames(role)).toEqual(['Department head', 'Department user']);
    await user.keyboard('{Escape}');

    const name = within(dialog).getByLabelText(/^Full name/);
    await user.clear(name);
    await user.type(name, 'Hal J.');
    await user.type(within(dialog).getByLabelText(/^New password/), 'short');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByText('Password must be at least 8 characters')).toBeInTheDocument();
    await user.clear(within(dialog).getByLabelText(/^New password/));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Hal J. was updated')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ fullName: 'Hal J.' });
  });

  it("names the dialogs' close buttons, in the interface language (the edit dialog and a confirmation)", async () => {
    mockUsers([hal]);
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/admin/users');
    await screen.findByText('Hal Jordan');

    await user.click(screen.getByRole('button', { name: 'Actions for Hal Jordan' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Edit' }));
    const edit = await screen.findByRole('dialog', { name: 'Edit Hal Jordan' });
    await user.click(within(edit).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Edit Hal Jordan' })).not.toBeInTheDocument());

    await act(() => changeLocale('fr'));
    await user.click(screen.getByRole('button', { name: 'Actions pour Hal Jordan' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Supprimer' }));
    const confirm = await screen.findByRole('dialog', { name: "Supprimer l'utilisateur" });
    expect(within(confirm).getByRole('button', { name: 'Fermer' })).toBeInTheDocument();
  });

  it('has an empty state that leads to creating a user', async () => {
    mockUsers([]);
    session.start('token', ceo);
    renderApp('/admin/users');
    expect(await screen.findByText('No users yet')).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: 'Create user' }).at(-1)).toHaveAttribute('href', '/admin/users/create');
  });

  it('shows invited people by where their invitation stands, a bounced one in words', async () => {
    const staff = { enterpriseId: enterprise.id, departmentId: departments[0].id };
    mockUsers([
      makeInvitedUser('DepartmentUser', { id: 'ivy', fullName: 'Ivy Invited', email: 'ivy@acme.test', ...staff }),
      makeInvitedUser('DepartmentUser', { id: 'eve', fullName: 'Eve Expired', email: 'eve@acme.test', ...staff }, 'expired'),
      makeInvitedUser('DepartmentHead', { id: 'bob', fullName: 'Bob Bounced', email: 'bob@nowhere.test', ...staff }, 'bounced'),
      hal,
    ]);
    session.start('token', ceo);
    renderApp('/admin/users');

    await screen.findByText('Ivy Invited');
    const status = (name: string) => within(row(name)).queryByTestId('invitation-status');
    expect(status('Ivy Invited')).toHaveTextContent('Invited');
    expect(status('Eve Expired')).toHaveTextContent('Invitation expired');
    expect(status('Bob Bounced')).toHaveTextContent('Invitation bounced');
    expect(row('Bob Bounced')).toHaveTextContent('The mail server refused this address');
    expect(row('Ivy Invited')).not.toHaveTextContent('The mail server refused this address');
    // Someone who has signed up shows their account's status, with nothing to resend.
    expect(status('Hal Jordan')).toBeNull();
    expect(row('Hal Jordan')).toHaveTextContent('Active');
    expect(within(row('Hal Jordan')).queryByRole('button', { name: /^Resend invitation/ })).not.toBeInTheDocument();

    await act(() => changeLocale('fr'));
    expect(await within(row('Bob Bounced')).findByText('Invitation non distribuée')).toBeInTheDocument();
    expect(row('Bob Bounced')).toHaveTextContent('Le serveur de messagerie a refusé cette adresse');
    expect(status('Ivy Invited')).toHaveTextContent('Invité(e)');
    expect(status('Eve Expired')).toHaveTextContent('Invitation expirée');
  });

  it('resends an invitation, waiting for the answer with the button disabled, and says how it went', async () => {
    const ivy = makeInvitedUser('DepartmentUser', { id: 'ivy', fullName: 'Ivy Invited', email: 'ivy@acme.test', enterpriseId: enterprise.id }, 'expired');
    let answer!: (response: Response) => void;
    const answers: (() => Response | Promise<Response>)[] = [
      () => new Promise<Response>((resolve) => (answer = resolve)),
      () => apiError(409, { code: 'conflict', message: 'Already accepted', reason: 'already_accepted' }),
    ];
    const { calls } = mockApi({
      'GET /api/v1/users': jsonResponse(200, page([ivy])),
      [`GET /api/v1/enterprises/${enterprise.id}/departments`]: jsonResponse(200, departments),
      'POST /api/v1/users/ivy/invitation': () => answers.shift()!(),
    });
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/admin/users');

    const resend = await within(await screen.findByTestId('user-row')).findByRole('button', { name: 'Resend invitation (Ivy Invited)' });
    await user.click(resend);
    await waitFor(() => expect(resend).toBeDisabled());
    await user.click(resend);
    expect(calls.filter((call) => call.method === 'POST')).toHaveLength(1);
    answer(new Response(null, { status: 202 }));
    expect(await screen.findByText('A new invitation was sent to ivy@acme.test')).toBeInTheDocument();
    await waitFor(() => expect(resend).toBeEnabled());
    // The list is read again: the invitation's status may have changed.
    await waitFor(() => expect(calls.filter((call) => call.method === 'GET' && call.path.startsWith('/api/v1/users'))).toHaveLength(2));

    await user.click(resend);
    expect(await screen.findByText('The invitation could not be sent')).toBeInTheDocument();
    expect(screen.getByText('This person has already accepted their invitation.')).toBeInTheDocument();
  });
});
