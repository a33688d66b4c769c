import { describe, expect, it } from 'vitest';
import { mockApi } from './api-mock';
import { jsonResponse, page } from './fixtures';

describe('mockApi', () => {
  it('answers the mocked calls, whatever their query string, and records them', async () => {
    const { calls } = mockApi({ 'GET /api/v1/users': jsonResponse(200, page([])) });
    const response = await fetch('/api/v1/users?page=2');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ items: [], total: 0, page: 1, pageSize: 20 });
    expect(calls).toEqual([{ method: 'GET', path: '/api/v1/users?page=2', body: undefined }]);
  });

  // Passes only if the test fails: a call nobody mocked must not go unnoticed.
  it.fails('fails the test when a call has no mocked answer', async () => {
    mockApi({});
    const response = await fetch('/api/v1/users', { method: 'DELETE' });
    expect(response.status).toBe(501); // the app sees an error meanwhile; the test fails once it ends
  });
});
