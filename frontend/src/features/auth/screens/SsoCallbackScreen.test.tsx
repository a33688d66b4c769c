import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { apiError, jsonResponse, makeLoginResponse, makeUser, serverErrors } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const admin = makeUser('PlatformAdmin', { fullName: 'Root Admin' });

/** What the admin's dashboard asks for once signed in. */
const DASHBOARD = {
  'GET /api/v1/admin/dashboard': () => jsonResponse(500, { code: 'internal', message: 'x' }),
  'GET /api/v1/admin/statistics': () => jsonResponse(500, { code: 'internal', message: 'x' }),
  'GET /api/v1/platform/security-policy': () => jsonResponse(200, { mfaRequiredRoles: [] }),
};

/** The tab left for the provider with this `state` (LoginScreen, sso-sign-in.ts). */
const started = (state: string, remember = false) => sessionStorage.setItem('sso-state', JSON.stringify({ state, remember }));

const ssoFailed = (status: number, reason: string) => apiError(status, { code: 'sso_failed', reason, message: `Single sign-on failed: ${reason}` });

describe('the return from the identity provider (/sign-in/sso)', () => {
  it('finishes the sign-in this tab started, opens the session as a password sign-in does, and forgets the code', async () => {
    started('st-1', true);
    const { calls } = mockApi({ 'POST /api/v1/auth/sso/finish': jsonResponse(200, makeLoginResponse(admin, { deviceToken: 'dev-sso' })), ...DASHBOARD });
    const { location } = renderApp('/sign-in/sso?code=the-code&state=st-1&iss=https%3A%2F%2Fidp.example');

    expect(await screen.findByRole('heading', { name: 'Welcome, Root Admin' })).toBeInTheDocument();
    expect(location().pathname).toBe('/dashboard');
    expect(calls.find((call) => call.path === '/api/v1/auth/sso/finish')?.body).toEqual({ code: 'the-code', state: 'st-1' });
    // Remembered, as asked when it started; the device token is kept as after any sign-in.
    expect(localStorage.getItem('token')).toBe('tok');
    expect(localStorage.getItem('device')).toBe('dev-sso');
    expect(sessionStorage.getItem('sso-state')).toBeNull();
    expect(window.location.search).toBe('');
  });

  it('shows that it is signing in while the server checks', async () => {
    started('st-1');
    mockApi({ 'POST /api/v1/auth/sso/finish': () => new Promise<Response>(() => {}) });
    renderApp('/sign-in/sso?code=the-code&state=st-1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Single sign-on' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Signing you in…');
  });

  it.each([
    ['no sign-in was started in this tab', null],
    ['the state is not the one this tab kept', 'st-other'],
  ])('refuses without asking the server when %s (login CSRF)', async (_, kept) => {
    if (kept) started(kept);
    const { calls } = mockApi({});
    const { location } = renderApp('/sign-in/sso?code=planted-code&state=st-1');
    expect(await screen.findByRole('heading', { level: 1, name: 'You are not signed in' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('This sign-in was not started in this browser tab. Please sign in again.');
    expect(calls).toEqual([]);
    expect(session.get().status).toBe('signed_out');
    expect(sessionStorage.getItem('sso-state')).toBeNull();

    await userEvent.setup().click(screen.getByRole('link', { name: 'Back to sign in' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(location().pathname).toBe('/login');
  });

  it.each([
    ['access_denied', 'You cancelled at your identity provider.'],
    ['server_error', 'Your identity provider did not sign you in.'],
  ])('says what the provider answered (%s), without asking the server', async (error, text) => {
    started('st-1');
    const { calls } = mockApi({});
    renderApp(`/sign-in/sso?error=${error}&error_description=whatever&state=st-1`);
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
    expect(calls).toEqual([]);
  });

  it.each([
    [401, 'state_invalid', 'This sign-in has expired or was already used.'],
    [401, 'code_rejected', 'Your identity provider did not accept the sign-in code: it may have expired.'],
    [401, 'nonce_mismatch', "Your identity provider's answer does not belong to this sign-in."],
    [401, 'token_invalid', "Your identity provider's answer could not be verified."],
    [401, 'email_not_allowed', 'Your identity provider signed you in with an address your organisation does not accept here.'],
    [401, 'email_unverified', 'Your identity provider did not confirm that this e-mail address is yours.'],
    [403, 'identity_mismatch', 'Your account here is linked to another person at your identity provider.'],
    [403, 'not_invited', 'You do not have an account yet: ask your organisation to invite you.'],
    [502, 'provider_unavailable', 'Your identity provider cannot be reached right now.'],
  ])('explains a refusal by the server (%i %s), and stays signed out', async (status, reason, text) => {
    started('st-1');
    mockApi({ 'POST /api/v1/auth/sso/finish': ssoFailed(status, reason) });
    const { location } = renderApp('/sign-in/sso?code=the-code&state=st-1');
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
    expect(location().pathname).toBe('/sign-in/sso');
    expect(session.get().status).toBe('signed_out');
    expect(screen.getByRole('link', { name: 'Back to sign in' })).toHaveAttribute('href', '/login');
  });

  it('asks for the second step when the provider asserted none, then opens the session remembered as asked', async () => {
    started('st-1', true);
    const second = { mfaRequired: true, challenge: 'chal-sso', methods: ['totp', 'recovery_code'], enrollmentRequired: false };
    const { calls } = mockApi({
      'POST /api/v1/auth/sso/finish': jsonResponse(200, second),
      'POST /api/v1/auth/login/verify': jsonResponse(200, makeLoginResponse(admin, { deviceToken: 'dev-sso' })),
      ...DASHBOARD,
    });
    const { location } = renderApp('/sign-in/sso?code=the-code&state=st-1');

    expect(await screen.findByRole('heading', { name: 'Two-step sign-in' })).toBeInTheDocument();
    expect(session.get().status).toBe('signed_out');
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: /^Authentication code/ }), '123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));

    expect(await screen.findByRole('heading', { name: 'Welcome, Root Admin' })).toBeInTheDocument();
    expect(location().pathname).toBe('/dashboard');
    expect(calls.find((call) => call.path === '/api/v1/auth/login/verify')?.body).toEqual({ challenge: 'chal-sso', code: '123456' });
    expect(localStorage.getItem('token')).toBe('tok');
  });

  it('says so when the second step took too long, and the way back is a new sign-in', async () => {
    started('st-1');
    mockApi({
      'POST /api/v1/auth/sso/finish': jsonResponse(200, { mfaRequired: true, challenge: 'chal-sso', methods: ['totp'], enrollmentRequired: false }),
      'POST /api/v1/auth/login/verify': apiError(401, { code: 'challenge_expired', message: 'Sign in again' }),
    });
    renderApp('/sign-in/sso?code=the-code&state=st-1');
    const user = userEvent.setup();
    await user.type(await screen.findByRole('textbox', { name: /^Authentication code/ }), '123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Your two-step sign-in took more than 5 minutes. Please sign in again.');
    expect(screen.getByRole('link', { name: 'Back to sign in' })).toHaveAttribute('href', '/login');
    expect(session.get().status).toBe('signed_out');
  });

  it('explains an inactive account as a password sign-in does', async () => {
    started('st-1');
    mockApi({ 'POST /api/v1/auth/sso/finish': serverErrors.accountInactive() });
    renderApp('/sign-in/sso?code=the-code&state=st-1');
    expect(await screen.findByRole('alert')).toHaveTextContent('Your account or your enterprise is inactive');
  });

  it('is worded in French', async () => {
    await changeLocale('fr');
    started('st-1');
    mockApi({ 'POST /api/v1/auth/sso/finish': ssoFailed(401, 'nonce_mismatch') });
    renderApp('/sign-in/sso?code=the-code&state=st-1');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent("La réponse de votre fournisseur d'identité ne correspond pas à cette connexion.");
    expect(screen.getByRole('heading', { level: 1, name: "Vous n'êtes pas connecté" })).toBeInTheDocument();
    expect(within(screen.getByRole('main')).getByRole('link', { name: 'Retour à la connexion' })).toBeInTheDocument();
  });
});
