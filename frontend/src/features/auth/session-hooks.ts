import { notifications } from '@mantine/notifications';
import { lazy, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
// The plain fetch functions, not orval's react-query hooks: this module loads with the app and
// the sign-in page, which stay without react-query (it loads with the signed-in frame).
import { acceptInvitation, getMe, login, logout } from '@/api/generated/auth/auth';
import type { LoginRequest, LoginResponse, LoginResult, SecondFactorRequired, TokenAndPassword } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { adoptAccountLocale } from '@/lib/account-locale';
import { errorMessage } from '@/lib/errors';
import { session } from '@/lib/session';
import { STORAGE_KEYS, writeItem } from '@/lib/storage';

/**
 * Opens the session a sign-in answered (POST /auth/login, or an accepted invitation): the device
 * token, the session token and the user are stored, a browser without a language choice takes the
 * account's, and the guards take the user on.
 */
export async function startSession(answer: LoginResponse, remember: boolean): Promise<void> {
  writeItem(STORAGE_KEYS.device, answer.deviceToken, 'local');
  await adoptAccountLocale(answer.user);
  session.start(answer.token, answer.user, remember);
}

/** A sign-in that needs a second step (an authenticator's code, or setting one up) before a session. */
export const needsSecondFactor = (answer: LoginResult): answer is SecondFactorRequired => 'mfaRequired' in answer && answer.mfaRequired === true;

/**
 * The sign-in's later steps (sign-in-steps.ts): the second step (code, authenticator set-up,
 * recovery codes, passkey) and the sign-in with a passkey alone. Few sign-ins need them, so they
 * stay out of the sign-in page's first load. The sign-in and invitation screens start loading
 * them as the password is sent or the passkey button used (`loadSignInSteps`), so that they are
 * there when the answer asks for them; until then the route's Suspense shows its loader. (Here,
 * in the module the app starts with, it costs the sign-in page the least; vite.config.ts keeps
 * their chunks out of the page's preload list.)
 */
export const loadSignInSteps = () => import('./sign-in-steps');
export const SecondFactorStep = lazy(() => loadSignInSteps().then((steps) => ({ default: steps.SecondFactorStep })));

/**
 * Sign in. Answers the opened session's `LoginResponse`, or the `SecondFactorRequired` of an
 * account that must give a code first: nothing is stored then, and the second step
 * (components/SecondFactorStep) goes on and opens the session with `startSession`.
 * Rejects with the API client's error (`ApiRequestError`, `NetworkError`).
 */
export async function signIn(request: LoginRequest): Promise<LoginResult> {
  const answer = await login(request);
  if (!needsSecondFactor(answer)) await startSession(answer, request.rememberMe === true);
  return answer;
}

/**
 * Accept an invitation: the chosen password is set and the answer is a sign-in's, opened as one
 * (for this browser session: the person did not ask to be remembered), unless it asks for a
 * second step first (as `signIn`).
 */
export async function acceptInvitationAndSignIn(request: TokenAndPassword): Promise<LoginResult> {
  const answer = await acceptInvitation(request);
  if (!needsSecondFactor(answer)) await startSession(answer, false);
  return answer;
}

/**
 * Sign out: tell the server, then end the session whatever it answered. Ending it clears the
 * token and user and runs the `session.onEnd` resets (query cache, messaging state); the guard
 * then shows /login.
 */
export function useSignOut() {
  const [isSigningOut, setSigningOut] = useState(false);
  const signOut = () => {
    setSigningOut(true);
    logout()
      .catch(() => undefined) // signed out locally whatever the server said
      .finally(() => {
        setSigningOut(false);
        session.end('signed_out');
      });
  };
  return { signOut, isSigningOut };
}

/**
 * On start, a session restored from storage is checked with GET /auth/me: the user is refreshed,
 * or the session is closed when the call fails (a 401 is already handled by the API client).
 */
export function useVerifyRestoredSession() {
  const { t } = useTranslation();

  useEffect(() => {
    const restored = session.get();
    if (restored.status !== 'signed_in') return;
    const controller = new AbortController();
    getMe({ signal: controller.signal })
      .then((user) => session.updateUser(user))
      .catch((error: unknown) => {
        if (controller.signal.aborted || session.token() !== restored.token) return;
        if (isApiRequestError(error) && error.status === 401) return;
        session.end('unverified');
        notifications.show({ color: 'red', message: errorMessage(error, t) });
      });
    return () => controller.abort();
    // Once per start; later sign-ins bring a fresh user with them.
  }, []); // eslint-disable-line react-hooks/exhaustive-deps
}
