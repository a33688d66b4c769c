import { expect, test } from '@playwright/test';
import { admin, bearer } from '../support';
import { balancer, instances } from './topology';

/**
 * Two instances behind nginx (playwright.balanced.config.ts). These tests reach the instances
 * directly too, by their own ports, to show that nothing about a session lives in one process:
 * sessions are PostgreSQL's, their state is cached in the shared Redis, and events reach every
 * instance's sockets through Redis pub/sub.
 */
const [first, second] = instances;

test('the balancer sends requests to both instances in turn, and says which one served each', async ({ request }) => {
  const served: string[] = [];
  for (let i = 0; i < 6; i++) {
    const response = await request.get(`${balancer.url}/healthz`);
    expect(response.status()).toBe(200);
    served.push(response.headers()['x-upstream']);
  }
  // Round robin: one request each, in turn.
  expect(served.filter((s) => s === first.address)).toHaveLength(3);
  expect(served.filter((s) => s === second.address)).toHaveLength(3);
  for (let i = 1; i < served.length; i++) expect(served[i], served.join(' ')).not.toBe(served[i - 1]);
});

test('a session ended through one instance is dead on the other at once: its token answers 401 and its open socket closes with 4401', async ({
  page,
  request,
}) => {
  // Signed in through the first instance, and known to both.
  const login = await request.post(`${first.url}/api/v1/auth/login`, { data: admin });
  expect(login.status(), await login.text()).toBe(200);
  const { token } = (await login.json()) as { token: string };
  for (const instance of [first, second]) expect((await request.get(`${instance.url}/api/v1/auth/me`, { headers: bearer(token) })).status()).toBe(200);

  // A real-time socket on the first instance, from a page it served.
  await page.goto(`${first.url}/login`);
  const wsUrl = `${first.url.replace(/^http/, 'ws')}/api/v1/ws`;
  await page.evaluate(
    ({ url, token }) =>
      new Promise<void>((resolve, reject) => {
        const socket = new WebSocket(url);
        const state = window as unknown as { socketEvents: string[]; socketClosed: Promise<number> };
        state.socketEvents = [];
        state.socketClosed = new Promise((done) => socket.addEventListener('close', (event) => done(event.code)));
        socket.addEventListener('open', () => socket.send(JSON.stringify({ type: 'auth', token })));
        socket.addEventListener('message', (event) => {
          state.socketEvents.push(String(event.data));
          if (String(event.data).includes('"ready"')) resolve();
        });
        socket.addEventListener('close', (event) => reject(new Error(`the socket closed before it was ready (${event.code})`)));
      }),
    { url: wsUrl, token },
  );

  // Ended through the second instance.
  const logout = await request.post(`${second.url}/api/v1/auth/logout`, { headers: bearer(token) });
  expect(logout.status(), await logout.text()).toBe(204);

  // The first instance's socket hears of it at once, not at its next 30-second re-check.
  const closed = await page.evaluate(() => {
    const state = window as unknown as { socketEvents: string[]; socketClosed: Promise<number> };
    const late = new Promise<string>((resolve) => setTimeout(() => resolve('still open 5 s after the logout'), 5000));
    return Promise.race([state.socketClosed, late]).then((code) => ({ code, events: state.socketEvents }));
  });
  expect(closed.code).toBe(4401);
  // Told why (among the monitoring events an admin's socket also hears).
  expect(closed.events.map((e) => JSON.parse(e) as { type: string })).toContainEqual(expect.objectContaining({ type: 'session.ended', reason: 'logout' }));
  // And the first instance refuses the token.
  const me = await request.get(`${first.url}/api/v1/auth/me`, { headers: bearer(token) });
  expect(me.status()).toBe(401);
});
