import { describe, expect, it, vi } from 'vitest';
import { mockApi } from './api-mock';
import { jsonResponse, page } from './fixtures';

/**
 * mockApi fails a test with an unmocked call from an `onTestFinished` hook. To observe that
 * failure without failing this file, a test can set `finishHooks.capture`: the hooks mockApi
 * registers then go to it instead of to Vitest, and the test runs them itself.
 */
const finishHooks = vi.hoisted(() => ({ capture: null as null | ((hook: () => unknown) => void) }));
vi.mock('vitest', async (importOriginal) => {
  const actual = await importOriginal<typeof import('vitest')>();
  const onTestFinished: typeof actual.onTestFinished = (hook, timeout) =>
    finishHooks.capture ? finishHooks.capture(hook as () => unknown) : actual.onTestFinished(hook, timeout);
  return { ...actual, onTestFinished };
});

describe('mockApi', () => {
  it('answers the mocked calls, whatever their query string, and records them', async () => {
    const { calls } = mockApi({ 'GET /api/v1/users': jsonResponse(200, page([])) });
    const response = await fetch('/api/v1/users?page=2');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ items: [], total: 0, page: 1, pageSize: 20 });
    expect(calls).toEqual([{ method: 'GET', path: '/api/v1/users?page=2', body: undefined }]);
  });

  it('answers an unmocked call 501 and fails the test at its end, naming each such call once', async () => {
    const hooks: (() => unknown)[] = [];
    finishHooks.capture = (hook) => hooks.push(hook);
    try {
      mockApi({});
    } finally {
      finishHooks.capture = null;
    }
    expect(hooks).toHaveLength(1);

    const response = await fetch('/api/v1/users?page=3', { method: 'DELETE' });
    expect(response.status).toBe(501);
    expect(await response.json()).toEqual({ code: 'unmocked', message: 'No mock for DELETE /api/v1/users' });
    await fetch('/api/v1/users?page=3', { method: 'DELETE' });
    await fetch('/api/v1/teams');

    expect(() => hooks[0]()).toThrow(new Error('mockApi: calls without a mocked answer:\n  DELETE /api/v1/users?page=3\n  GET /api/v1/teams'));
  });

  it('lets a test whose calls were all mocked end without an error', async () => {
    const hooks: (() => unknown)[] = [];
    finishHooks.capture = (hook) => hooks.push(hook);
    try {
      mockApi({ 'GET /api/v1/users': jsonResponse(200, page([])) });
    } finally {
      finishHooks.capture = null;
    }

    await fetch('/api/v1/users');
    await fetch('/api/v1/messaging/unread');

    expect(hooks).toHaveLength(1);
    expect(hooks[0]()).toBeUndefined();
  });
});
