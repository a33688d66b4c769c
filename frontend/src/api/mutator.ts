import { endNotice, session } from '@/lib/session';
import type { ApiError } from './generated/model';

/** The error body every API error carries (`ApiError` in openapi.json: RFC 9457 problem details
 * with the contract's `code`, `message` and `fields`); the app reads the contract's members. */
export type ApiErrorBody = Pick<ApiError, 'code' | 'message'> & Partial<ApiError>;

/** A non-2xx answer from the API. */
export class ApiRequestError<E = ApiErrorBody> extends Error {
  override readonly name = 'ApiRequestError';
  readonly status: number;
  readonly code: string;
  readonly fields: Record<string, string>;
  /** With `conflict`: why (`own_account`, `has_reports`); with `session_expired`, why the server ended it; when the server said. */
  readonly reason: string | undefined;
  /** The server's (English) `message`, when the body had one. */
  readonly serverMessage: string | undefined;
  /** Seconds to wait before retrying (429 Retry-After), when the server said. */
  readonly retryAfter: number | undefined;
  readonly body: E | undefined;

  constructor(status: number, body: E | undefined, retryAfter?: number) {
    const parsed = asErrorBody(body);
    super(parsed?.message || `Request failed with status ${status}`);
    this.status = status;
    this.code = parsed?.code ?? (status >= 500 ? 'internal' : 'unknown');
    this.fields = parsed?.fields ?? {};
    this.reason = parsed?.reason ?? undefined;
    this.serverMessage = parsed?.message || undefined;
    this.retryAfter = retryAfter;
    this.body = body;
  }
}

/** The request never got an answer (offline, DNS, connection refused, CORS). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(cause: unknown) {
    super('Network request failed', { cause });
  }
}

// orval's generated hooks import these two names.
export type ErrorType<E> = ApiRequestError<E> | NetworkError;
export type BodyType<B> = B;

export const isApiRequestError = (error: unknown): error is ApiRequestError => error instanceof ApiRequestError;
export const isNetworkError = (error: unknown): error is NetworkError => error instanceof NetworkError;

function asErrorBody(body: unknown): ApiErrorBody | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { code, message, fields, reason } = body as Partial<ApiErrorBody>;
  if (typeof code !== 'string') return undefined;
  return { code, message: typeof message === 'string' ? message : '', fields, reason: typeof reason === 'string' ? reason : undefined };
}

/** Retry-After is either seconds or an HTTP date. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204 || response.status === 205) return undefined;
  const text = await response.text();
  if (!text) return undefined;
  const type = response.headers.get('Content-Type') ?? '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

// The sign-in and its second step, and single sign-on's finish: a 401 there is a wrong password,
// code or passkey, or a refused sign-in, not an ended session.
const isLoginRequest = (url: string) => /\/auth\/((webauthn\/)?login(\/verify|\/totp|\/options)?|sso\/finish)(\?|$)/.test(url);

function needsJsonContentType(body: BodyInit | null | undefined): boolean {
  return !(body instanceof FormData || body instanceof Blob || body instanceof URLSearchParams);
}

/**
 * The one way the app talks to the API (orval's mutator). Adds the bearer token, defaults to
 * JSON, logs each request and response (never headers or bodies), and turns failures into
 * `ApiRequestError` / `NetworkError`. A 401 (other than a failed sign-in) ends the session.
 * No timeout: callers cancel through `init.signal`.
 */
export async function customFetch<T>(url: string, options?: RequestInit): Promise<T> {
  const init = options ?? {};
  const method = (init.method ?? 'GET').toUpperCase();
  const headers = new Headers(init.headers);
  if (!headers.has('Content-Type') && needsJsonContentType(init.body)) headers.set('Content-Type', 'application/json');
  if (!headers.has('Accept')) headers.set('Accept', 'application/json');
  const token = session.token();
  if (token) headers.set('Authorization', `Bearer ${token}`);

  const started = performance.now();
  console.info(`[api] → ${method} ${url}`);

  let response: Response;
  try {
    response = await fetch(url, { ...init, method, headers });
  } catch (error) {
    if (init.signal?.aborted) throw error; // a cancelled request is not a network failure
    console.warn(`[api] ✕ ${method} ${url}: network error`);
    throw new NetworkError(error);
  }

  const elapsed = Math.round(performance.now() - started);
  const body = await readBody(response);

  if (!response.ok) {
    const error = new ApiRequestError(response.status, body as ApiErrorBody | undefined, parseRetryAfter(response.headers.get('Retry-After')));
    console.warn(`[api] ← ${response.status} ${method} ${url} (${elapsed} ms) ${error.code}`);
    // A session the server ended says why (`reason`), as the socket's session.ended would.
    if (response.status === 401 && !isLoginRequest(url)) session.expire(error.code === 'session_expired' && error.reason ? endNotice(error.reason) : 'expired');
    throw error;
  }

  console.info(`[api] ← ${response.status} ${method} ${url} (${elapsed} ms)`);
  return body as T;
}
