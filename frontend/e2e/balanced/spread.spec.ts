import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { accessLog, instances } from './topology';

/**
 * Runs after every flow of the balanced run (its project depends on theirs): nginx's access log
 * shows that both instances served them, sign-ins and sockets included, and that the balancer
 * never answered for a failed instance.
 */
type Entry = { method: string; uri: string; status: string; upstream: string; upstreamStatus: string };

test('both instances served the flows: API calls, sign-ins and real-time sockets, with no request failed at the balancer', () => {
  const entries = readFileSync(accessLog, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Entry);
  const api = entries.filter((e) => e.uri.startsWith('/api/v1/') && e.uri !== '/api/v1/ws');
  const signIns = api.filter((e) => e.method === 'POST' && e.uri === '/api/v1/auth/login' && e.status === '200');
  const sockets = entries.filter((e) => e.uri === '/api/v1/ws' && e.status === '101');
  expect(api.length).toBeGreaterThan(100);
  expect(signIns.length).toBeGreaterThan(10);
  expect(sockets.length).toBeGreaterThan(5);

  const count = (list: Entry[], address: string) => list.filter((e) => e.upstream === address).length;
  for (const { address } of instances) {
    // Round robin over one client at a time: close to half each.
    expect(count(api, address), `API calls served by ${address}`).toBeGreaterThan(api.length * 0.3);
    expect(count(signIns, address), `sign-ins served by ${address}`).toBeGreaterThan(0);
    expect(count(sockets, address), `sockets served by ${address}`).toBeGreaterThan(0);
  }
  // Every request reached an instance, and what the client got is what the instance answered
  // (but for requests the browser gave up on, 499, when a test closed its page).
  expect(entries.filter((e) => !instances.some((i) => i.address === e.upstream))).toEqual([]);
  expect(entries.filter((e) => e.status !== '499' && e.upstreamStatus !== e.status)).toEqual([]);
});
