import { onTestFinished, vi } from 'vitest';
import { jsonResponse } from './fixtures';

export type MockRequest = { method: string; url: URL; body: unknown };
type Answer = Response | ((request: MockRequest) => Response | Promise<Response>);

/**
 * What every signed-in screen asks for, answered unless a test answers it itself: the unread
 * total of the sidebar's "Messages" badge (none); and the sign-in page's single sign-on discovery.
 */
const FRAME_ANSWERS: Record<string, Answer> = {
  'GET /api/v1/messaging/unread': () => jsonResponse(200, { unread: 0 }),
  // ...and what the sign-in page asks as an address is typed: no single sign-on for it.
  'POST /api/v1/auth/sso/discover': () => jsonResponse(200, { sso: false, required: false }),
};

/**
 * Stubs `fetch` with answers per `"METHOD /api/v1/path"` (query strings ignored for matching).
 * A call without an answer fails the test (after it ran, naming every such call): a screen that
 * asks the server for something the test did not foresee is a finding, not a 404 to shrug at.
 * The app gets a 501 for it meanwhile. The signed-in frame's own calls have default answers
 * (FRAME_ANSWERS). Returns the calls made, for assertions.
 */
export function mockApi(testAnswers: Record<string, Answer>) {
  const answers = { ...FRAME_ANSWERS, ...testAnswers };
  const calls: { method: string; path: string; body: unknown }[] = [];
  const unmocked: string[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init?.method ?? 'GET').toUpperCase();
    const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ method, path: `${url.pathname}${url.search}`, body });
    const answer = answers[`${method} ${url.pathname}`];
    if (!answer) {
      unmocked.push(`${method} ${url.pathname}${url.search}`);
      return jsonResponse(501, { code: 'unmocked', message: `No mock for ${method} ${url.pathname}` });
    }
    return typeof answer === 'function' ? answer({ method, url, body }) : answer.clone();
  });
  vi.stubGlobal('fetch', fetchMock);
  vi.spyOn(console, 'info').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  onTestFinished(() => {
    if (unmocked.length > 0) throw new Error(`mockApi: calls without a mocked answer:\n  ${[...new Set(unmocked)].join('\n  ')}`);
  });
  return { calls, fetchMock };
}

/**
 * The members of a request body the server takes as given: an optional member sent as `null` is
 * read as absent (the document declares each such member nullable), so a mock applying a change
 * skips it too.
 */
export function givenMembers<T extends object>(body: T | null | undefined): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(body ?? {}).filter(([, value]) => value !== null)) as { [K in keyof T]?: Exclude<T[K], null> };
}
