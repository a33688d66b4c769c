import { ApiRequestError, type ApiErrorBody, NetworkError, parseRetryAfter } from '@/api/mutator';
import { session } from './session';

/** `attachment; filename="a.xlsx"; filename*=UTF-8''a.xlsx` → the (decoded) name. */
export function filenameFrom(disposition: string | null, fallback: string): string {
  if (!disposition) return fallback;
  const extended = /filename\*\s*=\s*(?:UTF-8'[^']*')?([^;]+)/i.exec(disposition);
  if (extended) {
    try {
      return decodeURIComponent(extended[1].trim().replace(/^"|"$/g, ''));
    } catch {
      /* fall through to the plain name */
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
  return plain ? plain[1].trim() : fallback;
}

/**
 * Downloads a file the API serves behind the bearer token (a bare link cannot send it): fetch,
 * then save the blob under the server's file name. Errors as the API client raises them.
 */
export async function downloadFile(url: string, fallbackName: string): Promise<void> {
  const headers = new Headers();
  const token = session.token();
  if (token) headers.set('Authorization', `Bearer ${token}`);
  console.info(`[api] → GET ${url}`);
  let response: Response;
  try {
    response = await fetch(url, { headers });
  } catch (error) {
    throw new NetworkError(error);
  }
  console.info(`[api] ← ${response.status} GET ${url}`);
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as ApiErrorBody | undefined;
    if (response.status === 401) session.expire();
    throw new ApiRequestError(response.status, body, parseRetryAfter(response.headers.get('Retry-After')));
  }
  const blob = await response.blob();
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = filenameFrom(response.headers.get('Content-Disposition'), fallbackName);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}
