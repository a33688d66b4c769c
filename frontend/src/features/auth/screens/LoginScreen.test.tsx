import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { apiError, jsonResponse, makeLoginResponse, makeUser, serverErrors } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const fetchMock = vi.fn<typeof fetch>();

beforeEach(() => {
  // The page asks whether a typed address signs in with single sign-on (LoginScreen.sso.test.tsx):
  // not here. The other calls are the test's.
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) =>
    String(input).endsWith('/auth/sso/discover') ? Promise.resolve(jsonResponse(200, { sso: false, required: false })) : fetchMock(input, init),
  );
  fetchMock.mockReset();
  vi.spyOn(console, 'info').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});

async function fillAndSubmit(email: string, password: string) {
  const user = userEvent.setup();
  await user.type(await screen.findByRole('textbox', { name: 'Email' }), email);
  if (password) await user.type(screen.getByLabelText(/^Password/, { selector: 'input' }), password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('LoginScreen', () => {
  it('signs in, keeps token and user for this browser session only, and shows the dashboard', async () => {
    const admin = makeUser('PlatformAdmin', { fullName: 'Root Admin' });
    fetchMock.mockResolvedValue(jsonResponse(200, makeLoginResponse(admin)));
    const { location } = renderApp('/login');

    await fillAndSubmit('admin@example.com', 'correct horse');

    expect(await screen.findByRole('heading', { name: 'Welcome, Root Admin' })).toBeInTheDocument();
    expect(location().pathname).toBe('/dashboard');
    expect(sessionStorage.getItem('token')).toBe('tok');
    expect(JSON.parse(sessionStorage.getItem('user')!)).toEqual(admin);
    expect(localStorage.getItem('token')).toBeNull();
    const [, init] = fetchMock.mock.calls[0]!;
    expect(JSON.parse(init!.body as string)).toEqual({ email: 'admin@example.com', password: 'correct horse', rememberMe: false });
  });

  it('keeps the device token in localStorage and sends it with the next sign-in', async () => {
    const admin = makeUser('PlatformAdmin', { fullName: 'Root Admin' });
    localStorage.setItem('device', 'dev-earlier');
    fetchMock.mockResolvedValue(jsonResponse(200, makeLoginResponse(admin, { deviceToken: 'dev-new' })));
    renderApp('/login');
    await fillAndSubmit('admin@example.com', 'correct horse');

    expect(await screen.findByRole('heading', { name: 'Welcome, Root Admin' })).toBeInTheDocument();
    const [, init] = fetchMock.mock.calls[0]!;
    expect(JSON.parse(init!.body as string)).toMatchObject({ deviceToken: 'dev-earlier' });
    expect(localStorage.getItem('device')).toBe('dev-new');
  });

  it('keeps a remembered sign-in in localStorage, where it outlives the browser', async () => {
    const admin = makeUser('PlatformAdmin', { fullName: 'Root Admin' });
    fetchMock.mockResolvedValue(jsonResponse(200, makeLoginResponse(admin)));
    renderApp('/login');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('checkbox', { name: 'Remember me' }));
    await fillAndSubmit('admin@example.com', 'correct horse');

    expect(await screen.findByRole('heading', { name: 'Welcome, Root Admin' })).toBeInTheDocument();
    expect(localStorage.getItem('token')).toBe('tok');
    expect(sessionStorage.getItem('token')).toBeNull();
    const [, init] = fetchMock.mock.calls[0]!;
    expect(JSON.parse(init!.body as string)).toMatchObject({ rememberMe: true });
  });

  it("takes the account's language in a browser where none was chosen yet, and keeps a choice made here", async () => {
    const admin = makeUser('PlatformAdmin', { fullName: 'Root Admin', locale: 'fr' });
    fetchMock.mockImplementation(async () => jsonResponse(200, makeLoginResponse(admin)));
    const first = renderApp('/login');
    await fillAndSubmit('admin@example.com', 'correct horse');
    expect(await screen.findByRole('heading', { name: 'Bienvenue, Root Admin' })).toBeInTheDocument();
    expect(localStorage.getItem('locale')).toBe('fr');
    first.unmount();

    session.end('signed_out');
    await changeLocale('en');
    renderApp('/login');
    await fillAndSubmit('admin@example.com', 'correct horse');
    expect(await screen.findByRole('heading', { name: 'Welcome, Root Admin' })).toBeInTheDocument();
    expect(localStorage.getItem('locale')).toBe('en');
  });

  it('checks the fields before calling the server', async () => {
    renderApp('/login');
    await fillAndSubmit('not-an-email', '');

    expect(await screen.findByText('Please enter a valid email address')).toBeInTheDocument();
    expect(screen.getByText('This field is required')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Email' })).toHaveFocus();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("clears a field's error as the user types in it, and only that one", async () => {
    const user = userEvent.setup();
    renderApp('/login');
    await user.click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(screen.getAllByText('This field is required')).toHaveLength(2);

    await user.type(screen.getByRole('textbox', { name: 'Email' }), 'a');

    expect(screen.getAllByText('This field is required')).toHaveLength(1);
    expect(screen.getByLabelText(/^Password/, { selector: 'input' })).toHaveAccessibleDescription('This field is required');
    expect(screen.getByRole('textbox', { name: 'Email' })).not.toHaveAccessibleDescription('This field is required');
  });

  it("shows the server's field errors under their fields", async () => {
    fetchMock.mockResolvedValue(serverErrors.validation({ email: 'invalid_email', password: 'required' }));
    renderApp('/login');
    await fillAndSubmit('a@b.co', 'password1');

    expect(await screen.findByText('Please enter a valid email address')).toBeInTheDocument();
    expect(screen.getByText('This field is required')).toBeInTheDocument();
    expect(await screen.findByRole('alert')).toHaveTextContent('Please check your input');
  });

  it('sends one request while it waits, and says it is signing in', async () => {
    let answer!: (response: Response) => void;
    fetchMock.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    renderApp('/login');
    await fillAndSubmit('a@b.co', 'password1');

    const button = screen.getByRole('button', { name: 'Sign in' });
    expect(button).toBeDisabled();
    expect(button).toHaveAttribute('data-loading', 'true');
    await userEvent.setup().type(screen.getByLabelText(/^Password/, { selector: 'input' }), '{Enter}');
    expect(fetchMock).toHaveBeenCalledOnce();

    answer(serverErrors.invalidCredentials());
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid email or password');
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  });

  it('does not apply the password length rule to signing in', async () => {
    fetchMock.mockResolvedValue(serverErrors.invalidCredentials());
    renderApp('/login');
    await fillAndSubmit('a@b.co', 'short');
    expect(fetchMock).toHaveBeenCalledOnce();
  });

  it('shows "Invalid email or password" and stays signed out', async () => {
    fetchMock.mockResolvedValue(serverErrors.invalidCredentials());
    const { location } = renderApp('/login');

    await fillAndSubmit('admin@example.com', 'wrong password');

    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid email or password');
    expect(location().pathname).toBe('/login');
    expect(session.get().status).toBe('signed_out');
  });

  it('translates known error codes in French', async () => {
    await changeLocale('fr');
    fetchMock.mockResolvedValue(serverErrors.invalidCredentials());
    renderApp('/login');
    const user = userEvent.setup();

    await user.type(await screen.findByRole('textbox', { name: 'E-mail' }), 'a@b.co');
    await user.type(screen.getByLabelText(/^Mot de passe/, { selector: 'input' }), 'nope-nope');
    await user.click(screen.getByRole('button', { name: 'Se connecter' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('E-mail ou mot de passe invalide');
  });

  it.each([
    ['a network failure', () => Promise.reject(new TypeError('Failed to fetch')), 'Network error. Please check your connection.'],
    ['an inactive account', () => Promise.resolve(serverErrors.accountInactive()), 'Your account or your enterprise is inactive'],
    ['too many attempts', () => Promise.resolve(serverErrors.rateLimited(30)), 'Too many attempts. Please try again in 30 seconds.'],
    ['an unknown code', () => Promise.resolve(apiError(400, { code: 'weird', message: 'Something specific' })), 'Something specific'],
    ['a failure without a message', () => Promise.resolve(new Response(null, { status: 418 })), 'Login failed. Please try again.'],
  ])('explains %s', async (_, answer, text) => {
    fetchMock.mockImplementation(answer);
    renderApp('/login');
    await fillAndSubmit('a@b.co', 'password1');
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
  });

  it('links to the forgot-password page, which leads back', async () => {
    const user = userEvent.setup();
    const { location } = renderApp('/login');

    await user.click(await screen.findByRole('link', { name: 'Forgot password?' }));
    expect(await screen.findByRole('heading', { name: 'Forgot your password?' })).toBeInTheDocument();
    expect(screen.getByText('Enter the email address of your account: we will send you a link to choose a new password.')).toBeInTheDocument();

    await user.click(screen.getByRole('link', { name: 'Back to sign in' }));
    await screen.findByRole('button', { name: 'Sign in' });
    expect(location().pathname).toBe('/login');
  });
});
