import { startAuthentication } from '@simplewebauthn/browser';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SecondFactorRequired } from '@/api/generated/model';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { apiError, jsonResponse, makeLoginResponse, makeUser } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

// The browser's side of the ceremony: jsdom has no WebAuthn. The server's side is mocked below.
vi.mock('@simplewebauthn/browser', () => ({ startRegistration: vi.fn(), startAuthentication: vi.fn() }));

const admin = makeUser('PlatformAdmin', { fullName: 'Root Admin', mfaEnabled: true });
const OPTIONS = { challenge: 'Y2hhbGxlbmdl', rpId: 'localhost', userVerification: 'required' };
const ASSERTION = {
  id: 'Y3JlZA',
  rawId: 'Y3JlZA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', authenticatorData: 'YQ', signature: 'cw' },
  clientExtensionResults: {},
};
const cancelled = () => new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError');

/** What the admin's dashboard asks for once signed in. */
const DASHBOARD = {
  'GET /api/v1/admin/dashboard': () => jsonResponse(500, { code: 'internal', message: 'x' }),
  'GET /api/v1/admin/statistics': () => jsonResponse(500, { code: 'internal', message: 'x' }),
  'GET /api/v1/platform/security-policy': () => jsonResponse(200, { mfaRequiredRoles: [] }),
};

beforeEach(() => vi.stubGlobal('PublicKeyCredential', class PublicKeyCredential {}));

describe('signing in with a passkey alone', () => {
  it('needs no e-mail: a cancelled prompt is said plainly, the next try opens the session', async () => {
    const { calls } = mockApi({
      'POST /api/v1/auth/webauthn/login/options': jsonResponse(200, { publicKey: OPTIONS }),
      'POST /api/v1/auth/webauthn/login': jsonResponse(200, makeLoginResponse(admin)),
      ...DASHBOARD,
    });
    const { location } = renderApp('/login');
    const user = userEvent.setup();
    vi.mocked(startAuthentication).mockRejectedValueOnce(cancelled());
    await user.click(await screen.findByRole('button', { name: 'Use a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The passkey request was cancelled or timed out. Try again when you are ready.');
    expect(session.get().status).toBe('signed_out');

    vi.mocked(startAuthentication).mockResolvedValueOnce(ASSERTION as never);
    await user.click(screen.getByRole('checkbox', { name: 'Remember me' }));
    await user.click(screen.getByRole('button', { name: 'Use a passkey' }));
    expect(await screen.findByRole('heading', { name: 'Welcome, Root Admin' })).toBeInTheDocument();
    expect(location().pathname).toBe('/dashboard');
    // Remembered: the token is kept beyond this browser session, as a password sign-in's.
    expect(localStorage.getItem('token')).toBe('tok');
    expect(startAuthentication).toHaveBeenLastCalledWith({ optionsJSON: OPTIONS });
    expect(calls.filter((call) => call.path === '/api/v1/auth/webauthn/login/options').map((call) => call.body)).toEqual([{}, {}]);
    expect(calls.find((call) => call.path === '/api/v1/auth/webauthn/login')?.body).toEqual({ credential: ASSERTION, rememberMe: true });
  });

  it('says when the server does not know the passkey', async () => {
    mockApi({
      'POST /api/v1/auth/webauthn/login/options': jsonResponse(200, { publicKey: OPTIONS }),
      'POST /api/v1/auth/webauthn/login': apiError(401, { code: 'passkey_rejected', message: 'This passkey was not accepted' }),
    });
    const { location } = renderApp('/login');
    vi.mocked(startAuthentication).mockResolvedValueOnce(ASSERTION as never);
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Use a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('This passkey was not accepted: it may have been removed from its account.');
    expect(location().pathname).toBe('/login');
  });

  it('is not offered by a browser without WebAuthn', async () => {
    vi.stubGlobal('PublicKeyCredential', undefined);
    mockApi({});
    renderApp('/login');
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Use a passkey' })).not.toBeInTheDocument();
  });
});

describe('a passkey as the second step', () => {
  const challenge = (methods: string[]): SecondFactorRequired => ({ mfaRequired: true, challenge: 'chal-1', methods, enrollmentRequired: false });

  async function signInWithPassword() {
    const user = userEvent.setup();
    await user.type(await screen.findByRole('textbox', { name: 'Email' }), 'admin@example.com');
    await user.type(screen.getByLabelText(/^Password/, { selector: 'input' }), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    return user;
  }

  it('is the main action when the account has only passkeys: it answers the challenge and opens the session', async () => {
    const { calls } = mockApi({
      'POST /api/v1/auth/login': jsonResponse(200, challenge(['webauthn'])),
      'POST /api/v1/auth/webauthn/login/options': jsonResponse(200, { publicKey: OPTIONS }),
      'POST /api/v1/auth/login/verify': jsonResponse(200, makeLoginResponse(admin)),
      ...DASHBOARD,
    });
    const { location } = renderApp('/login');
    const user = await signInWithPassword();
    expect(await screen.findByRole('heading', { name: 'Two-step sign-in' })).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: /^Authentication code/ })).not.toBeInTheDocument();
    const button = screen.getByRole('button', { name: 'Use a passkey' });
    await waitFor(() => expect(button).toHaveFocus());

    vi.mocked(startAuthentication).mockRejectedValueOnce(cancelled());
    await user.click(button);
    expect(await screen.findByRole('alert')).toHaveTextContent('The passkey request was cancelled or timed out.');

    vi.mocked(startAuthentication).mockResolvedValueOnce(ASSERTION as never);
    await user.click(screen.getByRole('button', { name: 'Use a passkey' }));
    expect(await screen.findByRole('heading', { name: 'Welcome, Root Admin' })).toBeInTheDocument();
    expect(location().pathname).toBe('/dashboard');
    expect(calls.filter((call) => call.path === '/api/v1/auth/webauthn/login/options').map((call) => call.body)).toEqual([
      { challenge: 'chal-1' },
      { challenge: 'chal-1' },
    ]);
    expect(calls.find((call) => call.path === '/api/v1/auth/login/verify')?.body).toEqual({ challenge: 'chal-1', webauthn: ASSERTION });
  });

  it('is offered beside the code when the account also has an authenticator app', async () => {
    mockApi({ 'POST /api/v1/auth/login': jsonResponse(200, challenge(['totp', 'recovery_code', 'webauthn'])) });
    renderApp('/login');
    await signInWithPassword();
    const step = await screen.findByTestId('sign-in-code');
    expect(within(step).getByRole('textbox', { name: /^Authentication code/ })).toBeInTheDocument();
    expect(within(step).getByRole('button', { name: 'Use a passkey' })).toBeInTheDocument();
    expect(within(step).getByRole('button', { name: 'Use a recovery code' })).toBeInTheDocument();
  });

  it('goes back to the password when the five minutes passed', async () => {
    mockApi({
      'POST /api/v1/auth/login': jsonResponse(200, challenge(['webauthn'])),
      'POST /api/v1/auth/webauthn/login/options': apiError(401, { code: 'challenge_expired', message: 'Expired' }),
    });
    renderApp('/login');
    const user = await signInWithPassword();
    await user.click(await screen.findByRole('button', { name: 'Use a passkey' }));
    expect(await screen.findByText('More than 5 minutes passed since you entered your password. Please sign in again.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });
});
