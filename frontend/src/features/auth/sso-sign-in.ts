import { startSsoSignIn } from '@/api/generated/auth/auth';
import { STORAGE_KEYS, writeItem } from '@/lib/storage';

/**
 * What a tab keeps, in its session storage (`sso-state`), of the single sign-on it started. The
 * provider sends the browser back to /sign-in/sso with a `state`: only the one kept here may
 * finish there (a sign-in started elsewhere is refused: login CSRF), and `remember` ("Remember
 * me") decides where the session is kept then.
 */
export type SsoStart = { state: string; remember: boolean };

/**
 * Single sign-on from the sign-in page: asks the server for the provider's address (`POST
 * /auth/sso/start`), keeps its `state` in the tab and goes there. Loaded with the sign-in page:
 * keep it small.
 */
export async function beginSsoSignIn(email: string, remember: boolean): Promise<void> {
  const { authorizationUrl, state } = await startSsoSignIn({ email, rememberMe: remember });
  writeItem(STORAGE_KEYS.ssoState, JSON.stringify({ state, remember } satisfies SsoStart), 'session');
  window.location.assign(authorizationUrl);
}
