import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { SecondFactorRequired, VerifiedLogin } from '@/api/generated/model';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { apiError, jsonResponse, makeLoginResponse, makeUser, serverErrors } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const admin = makeUser('PlatformAdmin', { fullName: 'Root Admin', mfaEnabled: true });
const challenge = (overrides: Partial<SecondFactorRequired> = {}): SecondFactorRequired => ({
  mfaRequired: true,
  challenge: 'chal-1',
  methods: ['totp', 'recovery_code'],
  enrollmentRequired: false,
  ...overrides,
});
const verified = (overrides: Partial<VerifiedLogin> = {}): VerifiedLogin => ({ ...makeLoginResponse(admin), ...overrides });
const invalidCode = () => apiError(401, { code: 'invalid_code', message: 'This code is not correct' });

/** What the admin's dashboard asks for once signed in. */
const DASHBOARD = {
  'GET /api/v1/admin/dashboard': () => jsonResponse(500, { code: 'internal', message: 'x' }),
  'GET /api/v1/admin/statistics': () => jsonResponse(500, { code: 'internal', message: 'x' }),
  'GET /api/v1/platform/security-policy': () => jsonResponse(200, { mfaRequiredRoles: [] }),
};

async function signInWithPassword(email = 'admin@example.com', password = 'correct horse') {
  const user = userEvent.setup();
  await user.type(await screen.findByRole('textbox', { name: 'Email' }), email);
  await user.type(screen.getByLabelText(/^Password/, { selector: 'input' }), password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  return user;
}

describe('the second step of a sign-in', () => {
  it('asks for the app code (numeric, one-time-code, focused), then opens the session', async () => {
    const { calls } = mockApi({
      'POST /api/v1/auth/login': jsonResponse(200, challenge()),
      'POST /api/v1/auth/login/verify': jsonResponse(200, verified()),
      ...DASHBOARD,
    });
    const { location } = renderApp('/login');
    const user = await signInWithPassword();

    expect(await screen.findByRole('heading', { name: 'Two-step sign-in' })).toBeInTheDocument();
    const input = screen.getByRole('textbox', { name: /^Authentication code/ });
    expect(input).toHaveAttribute('autocomplete', 'one-time-code');
    expect(input).toHaveAttribute('inputmode', 'numeric');
    await waitFor(() => expect(input).toHaveFocus());
    expect(session.get().status).toBe('signed_out');

    await user.type(input, '123 456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));

    expect(await screen.findByRole('heading', { name: 'Welcome, Root Admin' })).toBeInTheDocument();
    expect(location().pathname).toBe('/dashboard');
    expect(sessionStorage.getItem('token')).toBe('tok');
    expect(calls.find((call) => call.path === '/api/v1/auth/login/verify')?.body).toEqual({ challenge: 'chal-1', code: '123456' });
  });

  it('says a wrong code plainly and lets the person try again, or use a recovery code', async () => {
    let attempts = 0;
    const { calls } = mockApi({
      'POST /api/v1/auth/login': jsonResponse(200, challenge()),
      'POST /api/v1/auth/login/verify': () => (++attempts < 3 ? invalidCode() : jsonResponse(200, verified())),
      ...DASHBOARD,
    });
    renderApp('/login');
    const user = await signInWithPassword();

    await user.type(await screen.findByRole('textbox', { name: /^Authentication code/ }), '000000');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('This code is not correct. Check your app and try the current code.')).toBeInTheDocument();
    // Still signed out, still on the code step (a 401 here is not an ended session).
    expect(session.get().status).toBe('signed_out');

    await user.click(screen.getByRole('button', { name: 'Use a recovery code' }));
    const recovery = screen.getByRole('textbox', { name: /^Recovery code/ });
    expect(recovery).toHaveAttribute('autocomplete', 'off');
    await user.type(recovery, 'used-code');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('This recovery code is not correct, or it was already used.')).toBeInTheDocument();

    await user.type(screen.getByRole('textbox', { name: /^Recovery code/ }), ' abcd-efgh ');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('heading', { name: 'Welcome, Root Admin' })).toBeInTheDocument();
    expect(calls.filter((call) => call.path === '/api/v1/auth/login/verify').at(-1)?.body).toEqual({ challenge: 'chal-1', code: 'abcd-efgh' });
  });

  it('goes back to the password when the five minutes passed, saying why', async () => {
    mockApi({
      'POST /api/v1/auth/login': jsonResponse(200, challenge()),
      'POST /api/v1/auth/login/verify': apiError(401, { code: 'challenge_expired', message: 'Sign in again' }),
    });
    renderApp('/login');
    const user = await signInWithPassword();
    await user.type(await screen.findByRole('textbox', { name: /^Authentication code/ }), '123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));

    expect(await screen.findByText('More than 5 minutes passed since you entered your password. Please sign in again.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.getByLabelText(/^Password/, { selector: 'input' })).toHaveValue('');
  });

  it('says how long to wait after too many attempts, and has a way back', async () => {
    mockApi({
      'POST /api/v1/auth/login': jsonResponse(200, challenge()),
      'POST /api/v1/auth/login/verify': serverErrors.rateLimited(30),
    });
    renderApp('/login');
    const user = await signInWithPassword();
    await user.type(await screen.findByRole('textbox', { name: /^Authentication code/ }), '123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Too many attempts. Please try again in 30 seconds.');

    await user.click(screen.getByRole('button', { name: 'Back: sign in again' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });

  it('guides the set-up of an authenticator a policy requires, shows the recovery codes once, then signs in', async () => {
    const codes = Array.from({ length: 10 }, (_, i) => `code-${i}`);
    const { calls } = mockApi({
      'POST /api/v1/auth/login': jsonResponse(200, challenge({ methods: [], enrollmentRequired: true })),
      'POST /api/v1/auth/login/totp': jsonResponse(200, {
        secret: 'JBSWY3DPEHPK3PXP',
        otpauthUrl: 'otpauth://totp/Acme:root?secret=JBSWY3DPEHPK3PXP&issuer=Acme',
      }),
      'POST /api/v1/auth/login/verify': jsonResponse(200, verified({ recoveryCodes: codes })),
      ...DASHBOARD,
    });
    renderApp('/login');
    const user = await signInWithPassword();

    expect(await screen.findByRole('heading', { name: 'Set up two-step sign-in' })).toBeInTheDocument();
    expect(await screen.findByTestId('totp-secret')).toHaveTextContent('JBSW Y3DP EHPK 3PXP');
    expect(await screen.findByRole('img', { name: 'QR code to scan with your authenticator app' })).toHaveAttribute(
      'src',
      expect.stringMatching(/^data:image\/svg\+xml/),
    );
    expect(screen.queryByRole('button', { name: 'Use a recovery code' })).not.toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: /^Authentication code/ }), '654321');
    await user.click(screen.getByRole('button', { name: 'Turn on and sign in' }));

    // The codes, before anything else: the session opens once they are kept.
    expect(await screen.findByRole('heading', { name: 'Save your recovery codes' })).toBeInTheDocument();
    const list = screen.getByRole('list', { name: 'Recovery codes' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(codes);
    expect(session.get().status).toBe('signed_out');
    const next = screen.getByRole('button', { name: 'Continue' });
    expect(next).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: 'I have saved these recovery codes' }));
    await user.click(next);

    expect(await screen.findByRole('heading', { name: 'Welcome, Root Admin' })).toBeInTheDocument();
    expect(calls.filter((call) => call.path === '/api/v1/auth/login/totp')).toEqual([
      { method: 'POST', path: '/api/v1/auth/login/totp', body: { challenge: 'chal-1' } },
    ]);
  });

  it('speaks French', async () => {
    await changeLocale('fr');
    mockApi({ 'POST /api/v1/auth/login': jsonResponse(200, challenge()) });
    renderApp('/login');
    const user = userEvent.setup();
    await user.type(await screen.findByRole('textbox', { name: 'E-mail' }), 'a@b.co');
    await user.type(screen.getByLabelText(/^Mot de passe/, { selector: 'input' }), 'password1');
    await user.click(screen.getByRole('button', { name: 'Se connecter' }));
    expect(await screen.findByRole('heading', { name: 'Connexion en deux étapes' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Utiliser un code de secours' })).toBeInTheDocument();
    await changeLocale('en');
  });
});
