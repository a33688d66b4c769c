import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse, makeSession, makeUser, page, summaryOf } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const hal = makeUser('DepartmentUser', { id: '0190f3c2-0000-7000-8000-000000000011', fullName: 'Hal Jordan', email: 'hal@acme.test' });
const here = makeSession(summaryOf(hal), {
  id: '0190f3c2-0000-7000-8000-000000000601',
  browser: 'Chrome 120.0',
  os: 'Windows',
  city: 'Boxford',
  current: true,
  lastSeenAt: '2026-03-01T08:00:00Z',
});
const phone = makeSession(summaryOf(hal), {
  id: '0190f3c2-0000-7000-8000-000000000602',
  browser: 'Safari 17.0',
  os: 'iOS',
  deviceType: 'mobile',
  city: 'Linköping',
  country: 'SE',
  lastSeenAt: '2026-03-01T10:30:00Z',
  signInMethod: 'password_totp',
});

async function openYourSessions(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByRole('button', { name: /^Account menu for Hal Jordan/ }));
  await user.click(await screen.findByRole('menuitem', { name: 'Your sessions' }));
  return screen.findByRole('dialog', { name: 'Your sessions' });
}

describe('your sessions (user menu)', () => {
  it('lists your live sessions with device, place and last activity, this one first and marked', async () => {
    const { calls } = mockApi({
      'GET /api/v1/auth/sessions': jsonResponse(200, page([phone, here])),
    });
    session.start('token', hal);
    const user = userEvent.setup();
    renderApp('/no-such-page');

    const dialog = await openYourSessions(user);
    const entries = await within(dialog).findAllByTestId('your-session');
    expect(entries).toHaveLength(2);
    expect(entries[0]).toHaveTextContent('Chrome 120.0 on Windows');
    expect(entries[0]).toHaveTextContent('Boxford, United Kingdom');
    expect(within(entries[0]).getByTestId('current-session')).toHaveTextContent('This device');
    expect(entries[1]).toHaveTextContent('Safari 17.0 on iOS');
    expect(entries[1]).toHaveTextContent('Linköping, Sweden');
    expect(entries[1]).toHaveTextContent('Last seen Mar 1, 2026');
    expect(entries[1]).toHaveTextContent('Password + app code');
    expect(entries[0]).toHaveTextContent(' · Password');
    expect(within(entries[1]).queryByTestId('current-session')).not.toBeInTheDocument();
    expect(calls.map((call) => call.path)).toContain('/api/v1/auth/sessions?active=true&page=1&pageSize=100');
  });

  it('ends another of your sessions, and signing out is how this one ends', async () => {
    let ended = false;
    const { calls } = mockApi({
      'GET /api/v1/auth/sessions': () => jsonResponse(200, page(ended ? [here] : [phone, here])),
      [`POST /api/v1/auth/sessions/${phone.id}/logout`]: () => {
        ended = true;
        return new Response(null, { status: 204 });
      },
      'POST /api/v1/auth/logout': new Response(null, { status: 204 }),
    });
    session.start('token', hal);
    const user = userEvent.setup();
    renderApp('/no-such-page');

    const dialog = await openYourSessions(user);
    await user.click(await within(dialog).findByRole('button', { name: 'End session on Safari 17.0 on iOS in Linköping, Sweden' }));
    expect(await screen.findByText('The session on Safari 17.0 on iOS in Linköping, Sweden was ended.')).toBeInTheDocument();
    await waitFor(() => expect(within(dialog).getAllByTestId('your-session')).toHaveLength(1));
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([`/api/v1/auth/sessions/${phone.id}/logout`]);

    // This browser's session: "Sign out here" signs out the usual way (POST /auth/logout, then the
    // session ends here too: the signed-in frame and the dialog are gone).
    expect(within(dialog).queryByRole('button', { name: /^End session/ })).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Sign out here' }));
    await waitFor(() => expect(session.get()).toEqual({ status: 'signed_out', reason: 'signed_out' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Your sessions' })).not.toBeInTheDocument());
    expect(screen.queryByRole('button', { name: /^Account menu/ })).not.toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([
      `/api/v1/auth/sessions/${phone.id}/logout`,
      '/api/v1/auth/logout',
    ]);
  });

  it('reads your sessions again when the window comes back (last activity moves without an event)', async () => {
    let answer = [here];
    const { calls } = mockApi({ 'GET /api/v1/auth/sessions': () => jsonResponse(200, page(answer)) });
    session.start('token', hal);
    const user = userEvent.setup();
    renderApp('/no-such-page');
    const dialog = await openYourSessions(user);
    await waitFor(() => expect(within(dialog).getAllByTestId('your-session')).toHaveLength(1));

    answer = [here, phone];
    fireEvent(window, new Event('visibilitychange'));
    await waitFor(() => expect(within(dialog).getAllByTestId('your-session')).toHaveLength(2));
    expect(calls.filter((call) => call.path.startsWith('/api/v1/auth/sessions'))).toHaveLength(2);
  });
});
