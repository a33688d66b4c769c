import { vi } from 'vitest';
import { jsonResponse } from './fixtures';

export type MockRequest = { method: string; url: URL; body: unknown };
type Answer = Response | ((request: MockRequest) => Response | Promise<Response>);

/**
 * Stubs `fetch` with answers per `"METHOD /api/v1/path"` (query strings ignored for matching);
 * anything else is a 404. Returns the calls made, for assertions.
 */
export function mockApi(answers: Record<string, Answer>) {
  const calls: { method: string; path: string; body: unknown }[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init?.method ?? 'GET').toUpperCase();
    const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ method, path: `${url.pathname}${url.search}`, body });
    const answer = answers[`${method} ${url.pathname}`];
    if (!answer) return jsonResponse(404, { code: 'not_found', message: `No mock for ${method} ${url.pathname}` });
    return typeof answer === 'function' ? answer({ method, url, body }) : answer.clone();
  });
  vi.stubGlobal('fetch', fetchMock);
  vi.spyOn(console, 'info').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  return { calls, fetchMock };
}
