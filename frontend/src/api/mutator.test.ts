import { beforeEach, describe, expect, it, vi } from 'vitest';
import { setNavigator } from '@/lib/navigation';
import { session } from '@/lib/session';
import { jsonResponse, makeUser } from '@/testing/fixtures';
import { ApiRequestError, NetworkError, customFetch } from './mutator';

const fetchMock = vi.fn<typeof fetch>();

const sentHeaders = () => new Headers(fetchMock.mock.calls[0]?.[1]?.headers);

beforeEach(() => {
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockReset();
  vi.spyOn(console, 'info').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});

describe('customFetch', () => {
  it('sends the stored token as a bearer token', async () => {
    session.start('tok-123', makeUser());
    fetchMock.mockResolvedValue(jsonResponse(200, { ok: true }));

    await expect(customFetch('/api/v1/auth/me', { method: 'GET' })).resolves.toEqual({ ok: true });

    expect(sentHeaders().get('Authorization')).toBe('Bearer tok-123');
  });

  it('sends no Authorization header without a stored token', async () => {
    fetchMock.mockResolvedValue(jsonResponse(200, {}));

    await customFetch('/api/v1/auth/login', { method: 'POST', body: '{}' });

    expect(sentHeaders().has('Authorization')).toBe(false);
  });

  it('defaults to JSON but keeps a content type the caller chose', async () => {
    fetchMock.mockResolvedValue(jsonResponse(200, {}));
    await customFetch('/api/v1/x', { method: 'POST', body: '{}' });
    expect(sentHeaders().get('Content-Type')).toBe('application/json');

    fetchMock.mockClear();
    fetchMock.mockResolvedValue(jsonResponse(200, {}));
    await customFetch('/api/v1/x', { method: 'POST', body: 'a', headers: { 'Content-Type': 'text/plain' } });
    expect(sentHeaders().get('Content-Type')).toBe('text/plain');
  });

  it('returns undefined for 204', async () => {
    fetchMock.mockResolvedValue(new Response(null, { status: 204 }));
    await expect(customFetch('/api/v1/auth/logout', { method: 'POST' })).resolves.toBeUndefined();
  });

  it('throws a typed error with the status and the parsed error body', async () => {
    fetchMock.mockResolvedValue(jsonResponse(422, { code: 'validation_failed', message: 'Invalid input', fields: { email: 'invalid_email' } }));

    const error = await customFetch('/api/v1/users', { method: 'POST', body: '{}' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiRequestError);
    expect(error).toMatchObject({
      status: 422,
      code: 'validation_failed',
      serverMessage: 'Invalid input',
      fields: { email: 'invalid_email' },
    });
  });

  it('reads Retry-After on 429', async () => {
    fetchMock.mockResolvedValue(jsonResponse(429, { code: 'rate_limited', message: 'Slow down' }, { 'Retry-After': '42' }));
    await expect(customFetch('/api/v1/auth/login', { method: 'POST' })).rejects.toMatchObject({ status: 429, retryAfter: 42 });
  });

  it('copes with an error body that is not JSON', async () => {
    fetchMock.mockResolvedValue(new Response('Bad Gateway', { status: 502, headers: { 'Content-Type': 'text/plain' } }));
    await expect(customFetch('/api/v1/x')).rejects.toMatchObject({ status: 502, code: 'internal', serverMessage: undefined });
  });

  it('tells a network failure apart from an HTTP error', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));

    const error = await customFetch('/api/v1/x').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(NetworkError);
    expect(error).not.toBeInstanceOf(ApiRequestError);
  });

  it('passes an abort through instead of calling it a network error', async () => {
    const controller = new AbortController();
    controller.abort();
    fetchMock.mockRejectedValue(new DOMException('Aborted', 'AbortError'));

    await expect(customFetch('/api/v1/x', { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  // A sign-in without "remember me" is kept in sessionStorage, a remembered one in localStorage
  // (lib/session): the 401 must clear the area the sign-in really wrote to.
  it.each([
    { signIn: 'not remembered', remember: false, kept: sessionStorage, other: localStorage },
    { signIn: 'remembered', remember: true, kept: localStorage, other: sessionStorage },
  ])('on 401 clears the token and user of a $signIn sign-in from storage and goes to /login', async ({ remember, kept, other }) => {
    const navigate = vi.fn();
    setNavigator(navigate);
    const user = makeUser();
    session.start('tok-dead', user, remember);
    expect(kept.getItem('token')).toBe('tok-dead');
    expect(JSON.parse(kept.getItem('user')!)).toEqual(user);
    expect(other.getItem('token')).toBeNull();
    expect(other.getItem('user')).toBeNull();
    fetchMock.mockResolvedValue(jsonResponse(401, { code: 'session_expired', message: 'Session expired' }));

    await expect(customFetch('/api/v1/auth/me')).rejects.toMatchObject({ status: 401, code: 'session_expired' });

    for (const area of [kept, other]) {
      expect(area.getItem('token')).toBeNull();
      expect(area.getItem('user')).toBeNull();
    }
    expect(session.get()).toMatchObject({ status: 'signed_out', reason: 'expired' });
    expect(navigate).toHaveBeenCalledWith('/login', expect.objectContaining({ reason: 'expired' }));
  });

  it.each([
    ['revoked', 'ended'],
    ['logout', 'ended'],
    ['user_deactivated', 'user_deactivated'],
    ['role_changed', 'role_changed'],
    ['idle', 'expired'],
  ])('on a 401 for a session the server ended (%s), the sign-in page is told why (%s)', async (reason, notice) => {
    const navigate = vi.fn();
    setNavigator(navigate);
    session.start('tok-ended', makeUser());
    fetchMock.mockResolvedValue(jsonResponse(401, { code: 'session_expired', message: 'Your session has expired. Please login again.', reason }));

    await expect(customFetch('/api/v1/reports')).rejects.toMatchObject({ status: 401, code: 'session_expired', reason });

    expect(session.get()).toMatchObject({ status: 'signed_out', reason: notice });
    expect(navigate).toHaveBeenCalledWith('/login', expect.objectContaining({ reason: notice }));
  });

  it('leaves a failed sign-in (401 from /auth/login) to the sign-in screen', async () => {
    const navigate = vi.fn();
    setNavigator(navigate);
    fetchMock.mockResolvedValue(jsonResponse(401, { code: 'invalid_credentials', message: 'Invalid email or password' }));

    await expect(customFetch('/api/v1/auth/login', { method: 'POST', body: '{}' })).rejects.toMatchObject({
      code: 'invalid_credentials',
      serverMessage: 'Invalid email or password',
    });
    expect(navigate).not.toHaveBeenCalled();
  });

  it.each([
    ['/api/v1/auth/webauthn/login', 'passkey_rejected'],
    ['/api/v1/auth/webauthn/login/options', 'challenge_expired'],
    ['/api/v1/auth/login/verify', 'passkey_rejected'],
    ['/api/v1/auth/sso/finish', 'sso_failed'],
  ])('leaves a refused passkey or single sign-on (401 from %s) to the sign-in screen', async (path, code) => {
    const navigate = vi.fn();
    setNavigator(navigate);
    fetchMock.mockResolvedValue(jsonResponse(401, { code, message: 'Refused' }));

    await expect(customFetch(path, { method: 'POST', body: '{}' })).rejects.toMatchObject({ code });
    expect(navigate).not.toHaveBeenCalled();
  });

  it('logs method, url and status but never the token or the password', async () => {
    session.start('secret-token', makeUser());
    fetchMock.mockResolvedValue(jsonResponse(200, {}));
    // The request starts at 1000 ms and its answer is read at 1012 ms: the log says 12 ms.
    vi.spyOn(performance, 'now').mockReturnValueOnce(1000).mockReturnValueOnce(1012);

    await customFetch('/api/v1/auth/login', { method: 'POST', body: JSON.stringify({ password: 'hunter22' }) });

    // The whole lines, so that a "200" can only be the status and nothing else gets in.
    expect(vi.mocked(console.info).mock.calls).toEqual([['[api] → POST /api/v1/auth/login'], ['[api] ← 200 POST /api/v1/auth/login (12 ms)']]);
    const logged = vi.mocked(console.info).mock.calls.flat().join('\n');
    expect(logged).not.toContain('secret-token');
    expect(logged).not.toContain('hunter22');
  });
});
