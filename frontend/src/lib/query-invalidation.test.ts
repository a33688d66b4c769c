import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { deletedReport, invalidate } from './query-invalidation';

const E1 = '/api/v1/enterprises/e1';
const KEYS = [
  ['/api/v1/enterprises', { page: 1 }],
  [E1],
  [`${E1}/departments`],
  [`${E1}/users`, { page: 1 }],
  ['/api/v1/enterprises/e2'],
  ['/api/v1/enterprises/e2/departments'],
  ['/api/v1/users', { page: 1 }],
  ['/api/v1/auth/me'],
] as const;

function clientWithEveryKey() {
  const client = new QueryClient();
  for (const key of KEYS) client.setQueryData(key, { cached: true });
  return client;
}

const staleKeys = (client: QueryClient) =>
  client
    .getQueryCache()
    .getAll()
    .filter((query) => query.state.isInvalidated)
    .map((query) => query.queryKey[0]);

describe('invalidate', () => {
  it('a department change refreshes its enterprise and the user lists, not other enterprises', async () => {
    const client = clientWithEveryKey();
    await invalidate.departments(client, 'e1');
    expect(staleKeys(client)).toEqual([E1, `${E1}/departments`, `${E1}/users`, '/api/v1/users']);
  });

  it('a user change refreshes the user lists and every enterprise read, not the session', async () => {
    const client = clientWithEveryKey();
    await invalidate.users(client);
    expect(staleKeys(client)).not.toContain('/api/v1/auth/me');
    expect(staleKeys(client)).toHaveLength(KEYS.length - 1);
  });

  it('a deleted enterprise is forgotten, the lists refreshed', async () => {
    const client = clientWithEveryKey();
    await invalidate.deletedEnterprise(client, 'e1');
    const left = client
      .getQueryCache()
      .getAll()
      .map((query) => query.queryKey[0]);
    expect(left).not.toContain(E1);
    expect(left).not.toContain(`${E1}/departments`);
    expect(left).toContain('/api/v1/enterprises/e2');
    expect(staleKeys(client)).toContain('/api/v1/enterprises');
  });

  it('a deleted report is forgotten, not refetched; the lists and dashboards that counted it are refreshed', async () => {
    const client = new QueryClient();
    for (const key of [
      ['/api/v1/reports/r1'],
      ['/api/v1/reports/r2'],
      ['/api/v1/departments/d1/reports', { page: 1 }],
      ['/api/v1/dashboard/ceo'],
      ['/api/v1/auth/me'],
    ])
      client.setQueryData(key, { cached: true });
    await deletedReport(client, 'r1');
    const left = client
      .getQueryCache()
      .getAll()
      .map((query) => query.queryKey[0]);
    expect(left).not.toContain('/api/v1/reports/r1');
    expect(staleKeys(client)).toEqual(['/api/v1/reports/r2', '/api/v1/departments/d1/reports', '/api/v1/dashboard/ceo']);
  });
});
