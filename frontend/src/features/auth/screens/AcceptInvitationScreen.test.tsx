import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { User } from '@/api/generated/model';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { apiError, jsonResponse, makeLoginResponse, makeUser, page, serverErrors } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const DEAD = 'This invitation link is invalid or has expired. Ask the person who invited you to send a new one.';

/** What the page's check of a working link answers: Cora Ceo invited `user` to Acme Corp, in their language. */
const preview = (user: User) =>
  jsonResponse(200, { fullName: user.fullName, email: user.email, enterpriseName: 'Acme Corp', invitedBy: 'Cora Ceo', locale: user.locale });

/** The server's answers around an accepted invitation: the link's check, the sign-in answer, then what the dashboard reads. */
function mockAccept(
  user: User,
  accept: Response | (() => Response) = jsonResponse(200, makeLoginResponse(user, { token: 'tok-new', deviceToken: 'dev-new' })),
  check: Response = preview(user),
) {
  return mockApi({
    'POST /api/v1/auth/invitations/check': () => check.clone(),
    'POST /api/v1/auth/invitations/accept': typeof accept === 'function' ? accept : () => accept.clone(),
    [`GET /api/v1/departments/${user.departmentId}/reports`]: jsonResponse(200, page([])),
  });
}

async function choose(password: string, { labels = ['Password', 'Confirm the password'], submit = 'Activate my account' } = {}) {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText(new RegExp(`^${labels[0]}`), { selector: 'input' }), password);
  await user.type(screen.getByLabelText(new RegExp(`^${labels[1]}`), { selector: 'input' }), password);
  await user.click(screen.getByRole('button', { name: submit }));
  return user;
}

describe('accept an invitation', () => {
  it('sets the password, keeps the session as a sign-in does, and opens the dashboard', async () => {
    const invited = makeUser('DepartmentUser', { fullName: 'Hal Jordan', email: 'hal@acme.test' });
    const { calls } = mockAccept(invited);
    const { location } = renderApp('/accept-invitation?token=inv-123');
    // The link is checked as the page opens: it names the enterprise and who invited them.
    expect(await screen.findByRole('heading', { level: 1, name: 'Join Acme Corp' })).toBeInTheDocument();
    expect(screen.getByText('Invited by Cora Ceo')).toBeInTheDocument();
    expect(
      screen.getByText('You were invited to join Enterprise Platform. Choose a password to activate your account: you are signed in at once.'),
    ).toBeInTheDocument();

    await choose('my own passphrase');

    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Hal Jordan' })).toBeInTheDocument();
    expect(location().pathname).toBe('/dashboard');
    expect(calls[0]).toMatchObject({ method: 'POST', path: '/api/v1/auth/invitations/check', body: { token: 'inv-123' } });
    expect(calls[1]).toMatchObject({ method: 'POST', path: '/api/v1/auth/invitations/accept', body: { token: 'inv-123', password: 'my own passphrase' } });
    expect(sessionStorage.getItem('token')).toBe('tok-new');
    expect(JSON.parse(sessionStorage.getItem('user')!)).toEqual(invited);
    expect(localStorage.getItem('device')).toBe('dev-new');
    expect(session.get().status).toBe('signed_in');
  });

  it("in a browser without a language choice yet, speaks the invitation's language from the start", async () => {
    const invited = makeUser('DepartmentUser', { fullName: 'Léa Martin', locale: 'fr' });
    mockAccept(invited);
    renderApp('/accept-invitation?token=inv-123');
    expect(await screen.findByRole('heading', { level: 1, name: 'Rejoindre Acme Corp' })).toBeInTheDocument();
    expect(screen.getByText('Invitation envoyée par Cora Ceo')).toBeInTheDocument();
    await choose('my own passphrase', { labels: ['Mot de passe', 'Confirmez le mot de passe'], submit: 'Activer mon compte' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Bienvenue, Léa Martin' })).toBeInTheDocument();
    expect(localStorage.getItem('locale')).toBe('fr');
    expect(document.documentElement.lang).toBe('fr');
  });

  it('keeps the language chosen in this browser', async () => {
    localStorage.setItem('locale', 'en');
    mockAccept(makeUser('DepartmentUser', { fullName: 'Léa Martin', locale: 'fr' }));
    renderApp('/accept-invitation?token=inv-123');
    expect(await screen.findByRole('heading', { level: 1, name: 'Join Acme Corp' })).toBeInTheDocument();
    await choose('my own passphrase');
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Léa Martin' })).toBeInTheDocument();
    expect(localStorage.getItem('locale')).toBe('en');
  });

  it('says a used or expired link is dead as the page opens, before a password is typed', async () => {
    const { calls } = mockAccept(makeUser('DepartmentUser'), jsonResponse(200, {}), serverErrors.validation({ token: 'invalid' }));
    renderApp('/accept-invitation?token=used');
    expect(await screen.findByRole('alert')).toHaveTextContent(`This invitation no longer works${DEAD}`);
    expect(screen.getByRole('heading', { level: 1, name: 'Welcome to Enterprise Platform' })).toBeInTheDocument();
    expect(screen.queryByLabelText(/^Password/, { selector: 'input' })).not.toBeInTheDocument();
    expect(calls.map((call) => call.path)).toEqual(['/api/v1/auth/invitations/check']);
  });

  it('keeps the form when the check could not be made: sending it tells', async () => {
    const invited = makeUser('DepartmentUser', { fullName: 'Hal Jordan' });
    mockAccept(invited, undefined, serverErrors.internal());
    renderApp('/accept-invitation?token=inv-123');
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome to Enterprise Platform' })).toBeInTheDocument();
    await choose('my own passphrase');
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Hal Jordan' })).toBeInTheDocument();
  });

  it('says when the link died after the page opened, and signs nobody in', async () => {
    mockAccept(makeUser('DepartmentUser'), serverErrors.validation({ token: 'invalid' }));
    const { location } = renderApp('/accept-invitation?token=used');
    await choose('my own passphrase');
    expect(await screen.findByRole('alert')).toHaveTextContent(`This invitation no longer works${DEAD}`);
    expect(screen.queryByRole('button', { name: 'Activate my account' })).not.toBeInTheDocument();
    expect(location().pathname).toBe('/accept-invitation');
    expect(session.get().status).toBe('signed_out');
    expect(sessionStorage.getItem('token')).toBeNull();
  });

  it('says so at once for a link without its token', async () => {
    const { calls } = mockApi({});
    renderApp('/accept-invitation');
    expect(await screen.findByRole('alert')).toHaveTextContent(DEAD);
    expect(calls).toEqual([]);
  });

  it("shows the server's word on the password under it", async () => {
    mockAccept(makeUser('DepartmentUser'), serverErrors.validation({ password: 'too_weak' }));
    renderApp('/accept-invitation?token=inv');
    await choose('password');
    expect(await screen.findByText('This password is too common or too easy to guess: choose a longer, less predictable one')).toBeInTheDocument();
    expect(screen.getByLabelText(/^Password/, { selector: 'input' })).toHaveFocus();
    expect(session.get().status).toBe('signed_out');
  });

  it('speaks French, its errors included', async () => {
    await changeLocale('fr');
    mockAccept(makeUser('DepartmentUser'), serverErrors.validation({ token: 'invalid' }));
    renderApp('/accept-invitation?token=used');
    expect(await screen.findByRole('heading', { level: 1, name: 'Rejoindre Acme Corp' })).toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText(/^Mot de passe/, { selector: 'input' }), 'court');
    await user.click(screen.getByRole('button', { name: 'Activer mon compte' }));
    expect(screen.getByText('Le mot de passe doit contenir au moins 8 caractères')).toBeInTheDocument();
    expect(screen.getByText('Ce champ est obligatoire')).toBeInTheDocument();
    await user.clear(screen.getByLabelText(/^Mot de passe/, { selector: 'input' }));
    await choose('ma phrase secrète', { labels: ['Mot de passe', 'Confirmez le mot de passe'], submit: 'Activer mon compte' });
    expect(await screen.findByRole('alert')).toHaveTextContent(
      "Ce lien d'invitation est invalide ou a expiré. Demandez à la personne qui vous a invité de vous en envoyer un nouveau.",
    );
  });

  it('asks someone already signed in to sign out first, then takes the invitation', async () => {
    session.start('tok-old', makeUser('EnterpriseCeo', { fullName: 'Cora Ceo' }));
    const { calls } = mockApi({
      'POST /api/v1/auth/logout': new Response(null, { status: 204 }),
      'POST /api/v1/auth/invitations/check': preview(makeUser('DepartmentUser')),
    });
    renderApp('/accept-invitation?token=inv');
    expect(await screen.findByRole('status')).toHaveTextContent('You are signed in as Cora Ceo. Sign out first to accept this invitation.');
    expect(screen.getByRole('link', { name: 'Continue as Cora Ceo' })).toHaveAttribute('href', '/dashboard');

    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('button', { name: 'Activate my account' })).toBeInTheDocument();
    // Checked once signed out, not before: the link is for whoever is about to accept it.
    await waitFor(() => expect(calls.map((call) => call.path)).toEqual(['/api/v1/auth/logout', '/api/v1/auth/invitations/check']));
  });

  it('goes on to the second step a policy requires (setting up an authenticator), then opens the dashboard', async () => {
    const invited = makeUser('DepartmentUser', { fullName: 'Hal Jordan', email: 'hal@acme.test' });
    const second = { mfaRequired: true, challenge: 'chal-9', methods: [], enrollmentRequired: true };
    const { calls } = mockApi({
      'POST /api/v1/auth/invitations/check': preview(invited),
      'POST /api/v1/auth/invitations/accept': jsonResponse(200, second),
      'POST /api/v1/auth/login/totp': jsonResponse(200, { secret: 'JBSWY3DPEHPK3PXP', otpauthUrl: 'otpauth://totp/Acme:hal?secret=JBSWY3DPEHPK3PXP' }),
      'POST /api/v1/auth/login/verify': jsonResponse(200, { ...makeLoginResponse(invited), recoveryCodes: ['aaaa-bbbb', 'cccc-dddd'] }),
      [`GET /api/v1/departments/${invited.departmentId}/reports`]: jsonResponse(200, page([])),
    });
    const { location } = renderApp('/accept-invitation?token=inv-123');
    const user = await choose('my own passphrase');

    expect(await screen.findByRole('heading', { name: 'Set up two-step sign-in' })).toBeInTheDocument();
    await screen.findByTestId('totp-secret');
    await user.type(screen.getByRole('textbox', { name: /^Authentication code/ }), '123456');
    await user.click(screen.getByRole('button', { name: 'Turn on and sign in' }));
    await user.click(await screen.findByRole('checkbox', { name: 'I have saved these recovery codes' }));
    await user.click(screen.getByRole('button', { name: 'Continue' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Hal Jordan' })).toBeInTheDocument();
    expect(location().pathname).toBe('/dashboard');
    expect(calls.find((call) => call.path === '/api/v1/auth/login/verify')?.body).toEqual({ challenge: 'chal-9', code: '123456' });
  });

  it('leads to single sign-on when the organisation requires it: its first sign-in accepts the invitation', async () => {
    const invited = makeUser('DepartmentUser', { fullName: 'Hal Jordan' });
    mockAccept(invited, () => apiError(403, { code: 'sso_required', message: 'Your organisation signs in with single sign-on' }));
    const { location } = renderApp('/accept-invitation?token=inv-123');
    const user = await choose('my own passphrase');
    expect(await screen.findByRole('alert')).toHaveTextContent('Your organisation signs in with single sign-on, not with a password.');
    await user.click(screen.getByRole('link', { name: 'Continue with single sign-on' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(location().pathname).toBe('/login');
    expect(session.get().status).toBe('signed_out');
  });
});
