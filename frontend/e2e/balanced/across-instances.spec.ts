import { generateKeyPairSync } from 'node:crypto';
import { type APIRequestContext, type Page, expect, test } from '@playwright/test';
import { admin, apiToken, bearer, createEnterprise, createStaff } from '../support';
import { balancer, instances } from './topology';

/**
 * Two instances behind nginx (playwright.balanced.config.ts). These tests reach the instances
 * directly too, by their own ports, to show that nothing about a session lives in one process:
 * sessions are PostgreSQL's, their state is cached in the shared Redis, and events reach every
 * instance's sockets through Redis pub/sub.
 */
const [first, second] = instances;

/** Opens a real-time socket from a page served by `base`, authenticated with `token`; resolves once it is ready. */
async function openSocket(page: Page, base: string, token: string) {
  await page.goto(`${base}/login`);
  const wsUrl = `${base.replace(/^http/, 'ws')}/api/v1/ws`;
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
}

/** Public keys as a browser registers them (any valid P-256 point will do for the server). */
async function registerKeys(request: APIRequestContext, token: string) {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { x, y } = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(x!, 'base64url'), Buffer.from(y!, 'base64url')]).toString('base64');
  const registered = await request.post('/api/v1/messaging/keys', { headers: bearer(token), data: { agreementKey: point, signingKey: point } });
  expect(registered.status(), await registered.text()).toBe(201);
}

test('the balancer sends requests to both instances, and says which one served each', async ({ request }) => {
  // Not a strict alternation: other tests' pages (and their polling) go through the same nginx at
  // the same time, so this test's requests are not the only ones in its round robin. Both
  // instances serve within a few requests all the same, and every answer names one of them.
  const served: string[] = [];
  for (let i = 0; i < 20 && new Set(served).size < 2; i++) {
    const response = await request.get(`${balancer.url}/healthz`);
    expect(response.status()).toBe(200);
    served.push(response.headers()['x-upstream']);
  }
  for (const upstream of served) expect([first.address, second.address], served.join(' ')).toContain(upstream);
  expect(new Set(served), served.join(' ')).toEqual(new Set([first.address, second.address]));
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
  await openSocket(page, first.url, token);

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

test('an event published through one instance reaches a socket held by the other', async ({ page, request }) => {
  const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
  const ceo = { fullName: `Across Ceo ${runId}`, email: `across-ceo-${runId}@e2e.test`, password: 'across-password-1' };
  const staff = { fullName: `Across Staff ${runId}`, email: `across-staff-${runId}@e2e.test`, password: 'across-password-1' };
  // Made through the balancer (either instance: they share PostgreSQL and Redis).
  const adminToken = await apiToken(request, admin);
  await createEnterprise(request, adminToken, `Across ${runId}`, ceo);
  const ceoToken = await apiToken(request, ceo);
  const staffId = await createStaff(request, ceoToken, staff);
  const staffToken = await apiToken(request, staff);
  await registerKeys(request, ceoToken);
  await registerKeys(request, staffToken);
  const conversation = await request.post('/api/v1/messaging/conversations', { headers: bearer(ceoToken), data: { participantId: staffId } });
  expect(conversation.status(), await conversation.text()).toBe(201);
  const { id } = (await conversation.json()) as { id: string };

  // The staff member listens on the second instance; the CEO types through the first.
  await openSocket(page, second.url, staffToken);
  const typing = await request.post(`${first.url}/api/v1/messaging/conversations/${id}/typing`, { headers: bearer(ceoToken) });
  expect(typing.status(), await typing.text()).toBe(204);

  await expect
    .poll(async () =>
      (await page.evaluate(() => (window as unknown as { socketEvents: string[] }).socketEvents)).map(
        (e) => JSON.parse(e) as { type: string; conversationId?: string },
      ),
    )
    .toContainEqual(expect.objectContaining({ type: 'conversation.typing', conversationId: id }));
});
