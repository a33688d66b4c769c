import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SsoDiscovered } from '@/api/generated/model';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { type MockRequest, mockApi } from '@/testing/api-mock';
import { apiError, jsonResponse } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const AUTHORIZATION_URL = 'https://idp.example/authorize?client_id=platform&state=st-1';
const START = { authorizationUrl: AUTHORIZATION_URL, state: 'st-1' };

/** Single sign-on for `acme.example` (offered or required); none for the other domains. */
const discovery =
  (required: boolean) =>
  ({ body }: MockRequest): Response => {
    const { email } = body as { email: string };
    const answer: SsoDiscovered = email.endsWith('@acme.example') ? { sso: true, required } : { sso: false, required: false };
    return jsonResponse(200, answer);
  };

const emailField = () => screen.findByRole('textbox', { name: /^(Email|E-mail)/ });
const passwordField = () => screen.queryByLabelText(/^(Password|Mot de passe)/, { selector: 'input' });

let assign: ReturnType<typeof vi.fn>;

beforeEach(() => {
  // Leaving for the provider is a full page load: jsdom has none, the test sees where it goes.
  assign = vi.fn();
  vi.stubGlobal('location', { assign, pathname: '/login', search: '', hash: '', origin: 'http://localhost' });
});

describe('single sign-on on the sign-in page', () => {
  it('is offered beside the password for an address whose organisation has it; its button goes to the provider', async () => {
    const { calls } = mockApi({
      'POST /api/v1/auth/sso/discover': discovery(false),
      'POST /api/v1/auth/sso/start': jsonResponse(200, START),
    });
    renderApp('/login');
    const user = userEvent.setup();
    await user.type(await emailField(), 'ada@other.example');
    await waitFor(() => expect(calls.filter((call) => call.path === '/api/v1/auth/sso/discover')).toHaveLength(1));
    expect(screen.queryByRole('button', { name: 'Continue with single sign-on' })).not.toBeInTheDocument();

    await user.clear(await emailField());
    await user.type(await emailField(), 'ada@acme.example');
    const button = await screen.findByRole('button', { name: 'Continue with single sign-on' });
    // Offered, not required: the password and its link stay.
    expect(passwordField()).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Forgot password?' })).toBeInTheDocument();

    await user.click(screen.getByRole('checkbox', { name: 'Remember me' }));
    await user.click(button);
    await waitFor(() => expect(assign).toHaveBeenCalledWith(AUTHORIZATION_URL));
    expect(calls.find((call) => call.path === '/api/v1/auth/sso/start')?.body).toEqual({ email: 'ada@acme.example', rememberMe: true });
    expect(JSON.parse(sessionStorage.getItem('sso-state')!)).toEqual({ state: 'st-1', remember: true });
    // Only complete-looking addresses were asked about, each once.
    const asked = calls.filter((call) => call.path === '/api/v1/auth/sso/discover').map((call) => (call.body as { email: string }).email);
    expect(asked).toEqual(['ada@other.example', 'ada@acme.example']);
  });

  it('replaces the password where it is required: the form itself goes to the provider', async () => {
    const { calls } = mockApi({
      'POST /api/v1/auth/sso/discover': discovery(true),
      'POST /api/v1/auth/sso/start': jsonResponse(200, START),
    });
    renderApp('/login');
    const user = userEvent.setup();
    await user.type(await emailField(), 'ada@acme.example');
    const submit = await screen.findByRole('button', { name: 'Continue with single sign-on' });
    expect(submit).toHaveAttribute('type', 'submit');
    expect(passwordField()).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Forgot password?' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sign in' })).not.toBeInTheDocument();

    await user.type(await emailField(), '{Enter}');
    await waitFor(() => expect(assign).toHaveBeenCalledWith(AUTHORIZATION_URL));
    expect(calls.find((call) => call.path === '/api/v1/auth/sso/start')?.body).toEqual({ email: 'ada@acme.example', rememberMe: false });
    expect(calls.some((call) => call.path === '/api/v1/auth/login')).toBe(false);
  });

  it('asks at once as the e-mail field is left, without waiting for the typing to pause', async () => {
    const { calls } = mockApi({ 'POST /api/v1/auth/sso/discover': discovery(true) });
    renderApp('/login');
    const email = await emailField();
    fireEvent.change(email, { target: { value: 'ada@acme.example' } });
    fireEvent.blur(email);
    expect(await screen.findByRole('button', { name: 'Continue with single sign-on' })).toBeInTheDocument();
    expect(calls.filter((call) => call.path === '/api/v1/auth/sso/discover')).toHaveLength(1);
  });

  it('turns to single sign-on when the password is refused because the organisation requires it', async () => {
    mockApi({
      // Discovered as nothing yet (the domain's set-up is newer than the answer), refused at the password.
      'POST /api/v1/auth/sso/discover': jsonResponse(200, { sso: false, required: false }),
      'POST /api/v1/auth/login': apiError(403, { code: 'sso_required', message: 'Your organisation signs in with single sign-on' }),
    });
    renderApp('/login');
    const user = userEvent.setup();
    await user.type(await emailField(), 'ada@acme.example');
    await user.type(passwordField()!, 'a password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('status')).toHaveTextContent('Your organisation signs in with single sign-on, not with a password.');
    expect(screen.getByRole('button', { name: 'Continue with single sign-on' })).toHaveAttribute('type', 'submit');
    expect(passwordField()).not.toBeInTheDocument();
    expect(session.get().status).toBe('signed_out');
  });

  it('says so when the identity provider cannot be reached', async () => {
    mockApi({
      'POST /api/v1/auth/sso/discover': discovery(true),
      'POST /api/v1/auth/sso/start': apiError(502, { code: 'sso_failed', reason: 'provider_unavailable', message: 'The identity provider cannot be reached' }),
    });
    renderApp('/login');
    const user = userEvent.setup();
    await user.type(await emailField(), 'ada@acme.example');
    await user.click(await screen.findByRole('button', { name: 'Continue with single sign-on' }));
    expect(await screen.findByRole('alert')).toHaveTextContent("Your organisation's identity provider cannot be reached right now.");
    expect(assign).not.toHaveBeenCalled();
    expect(sessionStorage.getItem('sso-state')).toBeNull();
    expect(screen.getByRole('button', { name: 'Continue with single sign-on' })).toBeEnabled();
  });

  it('is worded in French', async () => {
    await changeLocale('fr');
    mockApi({ 'POST /api/v1/auth/sso/discover': discovery(false) });
    renderApp('/login');
    await userEvent.setup().type(await emailField(), 'ada@acme.example');
    expect(await screen.findByRole('button', { name: "Utiliser l'authentification unique" })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Se connecter' })).toBeInTheDocument();
  });
});
