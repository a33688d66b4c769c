import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { User } from '@/api/generated/model';
import { App } from '@/app';
import { session } from '@/lib/session';
import { jsonResponse, makeUser, serverErrors } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const fetchMock = vi.fn<typeof fetch>();
const calls = () => fetchMock.mock.calls.map(([url, init]) => `${init?.method ?? 'GET'} ${String(url)}`);

beforeEach(() => {
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockReset();
  vi.spyOn(console, 'info').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  window.history.replaceState(null, '', '/dashboard');
});

/** A session restored from storage, as after a page load. */
function storeSession(user = makeUser('EnterpriseCeo', { fullName: 'Stored Name' })) {
  localStorage.setItem('token', 'stored-token');
  localStorage.setItem('user', JSON.stringify(user));
  session.reload();
  return user;
}

describe('session on start', () => {
  it('restores the stored user and refreshes it from GET /auth/me', async () => {
    const stored = storeSession();
    let answer!: (response: Response) => void;
    fetchMock.mockReturnValue(new Promise((resolve) => (answer = resolve)));

    render(<App />);

    expect(await screen.findByRole('heading', { name: 'Welcome, Stored Name' })).toBeInTheDocument();
    answer(jsonResponse(200, { ...stored, fullName: 'Fresh Name' } satisfies User));
    expect(await screen.findByRole('heading', { name: 'Welcome, Fresh Name' })).toBeInTheDocument();
    expect(JSON.parse(localStorage.getItem('user')!).fullName).toBe('Fresh Name');
    expect(calls()).toContain('GET /api/v1/auth/me');
  });

  it('closes the session when GET /auth/me answers 401', async () => {
    storeSession();
    // A fresh answer per call: the dashboard asks for its figures at the same time.
    fetchMock.mockImplementation(async () => serverErrors.sessionExpired());

    render(<App />);

    expect(await screen.findByText('Your session has expired. Please login again.')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/login');
    expect(localStorage.getItem('token')).toBeNull();
    expect(localStorage.getItem('user')).toBeNull();
  });

  it('closes the session when GET /auth/me cannot be reached', async () => {
    storeSession();
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));

    render(<App />);

    expect(await screen.findByText('Network error. Please check your connection.')).toBeInTheDocument();
    await waitFor(() => expect(window.location.pathname).toBe('/login'));
    expect(localStorage.getItem('token')).toBeNull();
  });
});

describe('sign out', () => {
  // A sign-in without "remember me" is kept in sessionStorage, a remembered one in localStorage
  // (lib/session): signing out must clear the area the sign-in really wrote to.
  it.each([
    { signIn: 'not remembered', remember: false, kept: sessionStorage, other: localStorage },
    { signIn: 'remembered', remember: true, kept: localStorage, other: sessionStorage },
  ])('calls POST /auth/logout, clears a $signIn sign-in from storage and shows /login', async ({ remember, kept, other }) => {
    const dee = makeUser('DepartmentUser', { fullName: 'Dee User' });
    session.start('tok', dee, remember);
    expect(kept.getItem('token')).toBe('tok');
    expect(JSON.parse(kept.getItem('user')!)).toEqual(dee);
    expect(other.getItem('token')).toBeNull();
    expect(other.getItem('user')).toBeNull();
    fetchMock.mockResolvedValue(new Response(null, { status: 204 }));
    const user = userEvent.setup();
    const { location } = renderApp('/dashboard');

    await user.click(await screen.findByRole('button', { name: /^Account menu for Dee User,/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'Sign out' }));

    await screen.findByRole('button', { name: 'Sign in' });
    expect(location().pathname).toBe('/login');
    expect(location().state).not.toHaveProperty('from');
    expect(calls().filter((call) => !call.startsWith('GET '))).toEqual(['POST /api/v1/auth/logout']);
    for (const area of [kept, other]) {
      expect(area.getItem('token')).toBeNull();
      expect(area.getItem('user')).toBeNull();
    }
  });

  it('still signs out locally when the server cannot be reached', async () => {
    session.start('tok', makeUser('DepartmentUser', { fullName: 'Dee User' }));
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    const user = userEvent.setup();
    const { location } = renderApp('/dashboard');

    await user.click(await screen.findByRole('button', { name: /^Account menu for Dee User,/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'Sign out' }));

    await screen.findByRole('button', { name: 'Sign in' });
    expect(location().pathname).toBe('/login');
    expect(session.get().status).toBe('signed_out');
  });
});
