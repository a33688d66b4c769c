import { notifications } from '@mantine/notifications';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { getMe, useLogin, useLogout } from '@/api/generated/auth/auth';
import { isApiRequestError } from '@/api/mutator';
import { errorMessage } from '@/lib/errors';
import { session } from '@/lib/session';
import { STORAGE_KEYS, writeItem } from '@/lib/storage';

/** Sign in: on success the token and user are stored and the guards take the user on. */
export function useSignIn() {
  return useLogin({
    mutation: {
      onSuccess: ({ token, user, deviceToken }, { data }) => {
        writeItem(STORAGE_KEYS.device, deviceToken, 'local');
        session.start(token, user, data.rememberMe === true);
      },
    },
  });
}

/**
 * Sign out: tell the server, then end the session whatever it answered. Ending it clears the
 * token and user and runs the `session.onEnd` resets (query cache, messaging state); the guard
 * then shows /login.
 */
export function useSignOut() {
  const logout = useLogout({
    mutation: { onSettled: () => session.end('signed_out') },
  });
  return { signOut: () => logout.mutate(), isSigningOut: logout.isPending };
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
