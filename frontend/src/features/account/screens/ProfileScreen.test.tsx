import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { UpdateMe, User } from '@/api/generated/model';
import { session } from '@/lib/session';
import { givenMembers, mockApi } from '@/testing/api-mock';
import { jsonResponse, makeMfaStatus, makeUser, page, serverErrors } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';
import { selectOptions } from '@/testing/select';

const me = makeUser('DepartmentUser', { fullName: 'Hal Jordan', email: 'hal@acme.test' });

beforeEach(() => session.start('tok', me));

/** PUT /auth/me answering the account with the changes applied, as the server does. */
function mockProfile(extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    'PUT /api/v1/auth/me': ({ body }) => {
      const changes = body as UpdateMe;
      return jsonResponse(200, {
        ...me,
        ...(changes.fullName ? { fullName: changes.fullName } : {}),
        ...(changes.locale ? { locale: changes.locale } : {}),
        notifications: { ...me.notifications, ...givenMembers(changes.notifications) },
      } satisfies User);
    },
    'GET /api/v1/auth/mfa': () => jsonResponse(200, makeMfaStatus()),
    'GET /api/v1/auth/webauthn/credentials': jsonResponse(200, []),
    ...extra,
  });
}

const section = (name: string) => screen.getByRole('region', { name });

async function openProfile() {
  const view = renderApp('/settings/profile');
  expect(await screen.findByRole('heading', { level: 1, name: 'Your profile' })).toBeInTheDocument();
  return view;
}

describe('the profile', () => {
  it('is reached from the user menu, whose first item it is', async () => {
    // The dashboard counts the department's drafts and rejected reports.
    mockProfile({ [`GET /api/v1/departments/${me.departmentId}/reports`]: jsonResponse(200, page([])) });
    const { location } = renderApp('/dashboard');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: /^Account menu for Hal Jordan/ }));
    const items = await screen.findAllByRole('menuitem');
    expect(items[0]).toHaveTextContent('Profile');
    await user.click(items[0]);
    expect(await screen.findByRole('heading', { level: 1, name: 'Your profile' })).toBeInTheDocument();
    expect(location().pathname).toBe('/settings/profile');
  });

  it('shows the account (the address read-only) and saves the name, which the header then shows', async () => {
    const { calls } = mockProfile();
    await openProfile();
    const account = section('Account');
    expect(within(account).getByRole('textbox', { name: 'Email' })).toHaveValue('hal@acme.test');
    expect(within(account).getByRole('textbox', { name: 'Email' })).toHaveAttribute('readonly');
    expect(account).toHaveTextContent('Department user');
    expect(account).toHaveTextContent('Acme Corp');

    const user = userEvent.setup();
    const name = within(account).getByRole('textbox', { name: /^Full name/ });
    await user.clear(name);
    await user.click(within(account).getByRole('button', { name: 'Save name' }));
    expect(name).toHaveAccessibleDescription('This field is required');
    expect(calls.filter((call) => call.method === 'PUT')).toEqual([]);

    await user.type(name, '  Harold Jordan ');
    await user.click(within(account).getByRole('button', { name: 'Save name' }));
    expect(await screen.findByText('Your name was saved')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ fullName: 'Harold Jordan' });
    expect(screen.getByTestId('user-menu-name')).toHaveTextContent('Harold Jordan');
  });

  it('saves the language on the account and switches the interface to it', async () => {
    const { calls } = mockProfile();
    await openProfile();
    const user = userEvent.setup();
    const language = within(section('Language')).getByRole('combobox', { name: 'Language' });
    expect(language).toHaveValue('English');
    await user.click(language);
    await user.click((await selectOptions(language))[1]);
    await user.click(within(section('Language')).getByRole('button', { name: 'Save language' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Votre profil' })).toBeInTheDocument();
    expect(await screen.findByText('Votre langue a été enregistrée')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ locale: 'fr' });
    expect(localStorage.getItem('locale')).toBe('fr');
    expect(session.get().status === 'signed_in' && session.get()).toMatchObject({ user: { locale: 'fr' } });
  });

  it('saves which e-mails the person wants', async () => {
    const { calls } = mockProfile();
    await openProfile();
    const user = userEvent.setup();
    const emails = section('Email notifications');
    const reports = within(emails).getByRole('switch', { name: 'Reports' });
    expect(reports).toBeChecked();
    expect(reports).toHaveAccessibleDescription('A report is submitted to you, or one of yours is reviewed, approved or rejected.');
    expect(within(emails).getByRole('switch', { name: 'Sign-in alerts' })).toBeChecked();
    await user.click(reports);
    await user.click(within(emails).getByRole('switch', { name: 'Invitations accepted' }));
    await user.click(within(emails).getByRole('button', { name: 'Save email preferences' }));

    expect(await screen.findByText('Your email preferences were saved')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ notifications: { reports: false, signIns: true, invitations: false } });
    expect(within(section('Email notifications')).getByRole('switch', { name: 'Reports' })).not.toBeChecked();
  });

  it('changes the password, saying the other sessions were signed out', async () => {
    const { calls } = mockProfile({ 'PUT /api/v1/auth/me/password': new Response(null, { status: 204 }) });
    await openProfile();
    const user = userEvent.setup();
    const password = section('Password');
    await user.type(within(password).getByLabelText(/^Current password/, { selector: 'input' }), 'old passphrase');
    await user.type(within(password).getByLabelText(/^New password/, { selector: 'input' }), 'new passphrase');
    await user.type(within(password).getByLabelText(/^Confirm the new password/, { selector: 'input' }), 'new passphrase');
    await user.click(within(password).getByRole('button', { name: 'Change password' }));

    expect(await screen.findByText('Your password was changed. Your other sessions were signed out.')).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/v1/auth/me/password')?.body).toEqual({ currentPassword: 'old passphrase', newPassword: 'new passphrase' });
    await waitFor(() => expect(within(password).getByLabelText(/^Current password/, { selector: 'input' })).toHaveValue(''));
    expect(session.get().status).toBe('signed_in');
  });

  it('checks the password fields, and shows the server’s refusals under them', async () => {
    const answers = [serverErrors.validation({ currentPassword: 'invalid' }), serverErrors.validation({ newPassword: 'too_weak' })];
    const { calls } = mockProfile({ 'PUT /api/v1/auth/me/password': () => answers.shift()! });
    await openProfile();
    const user = userEvent.setup();
    const password = section('Password');
    const current = within(password).getByLabelText(/^Current password/, { selector: 'input' });
    const next = within(password).getByLabelText(/^New password/, { selector: 'input' });
    const confirm = within(password).getByLabelText(/^Confirm the new password/, { selector: 'input' });
    const submit = within(password).getByRole('button', { name: 'Change password' });

    await user.type(next, 'short');
    await user.type(confirm, 'other');
    await user.click(submit);
    expect(current).toHaveAccessibleDescription('This field is required');
    expect(next).toHaveAccessibleDescription('Password must be at least 8 characters Minimum 8 characters required');
    expect(confirm).toHaveAccessibleDescription('The passwords do not match');
    expect(current).toHaveFocus();
    expect(calls.filter((call) => call.method === 'PUT')).toEqual([]);

    await user.type(current, 'wrong passphrase');
    await user.clear(next);
    await user.type(next, 'password1');
    await user.clear(confirm);
    await user.type(confirm, 'password1');
    await user.click(submit);
    expect(await screen.findByText('Your current password is not correct')).toBeInTheDocument();
    expect(screen.getByText('Your password could not be changed')).toBeInTheDocument();
    expect(current).toHaveFocus();
    // A wrong current password does not end the session.
    expect(session.get().status).toBe('signed_in');

    await user.click(submit);
    expect(await screen.findByText('This password is too common or too easy to guess: choose a longer, less predictable one')).toBeInTheDocument();
    expect(next).toHaveFocus();
  });
});
