import { Alert } from '@mantine/core';
import { IconAlertCircle, IconClockHour4, IconInfoCircle } from '@tabler/icons-react';
import type { TFunction } from 'i18next';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiRequestError } from '@/api/mutator';
import { errorMessage } from '@/lib/errors';
import type { SessionEndNotice } from '@/lib/session';

/**
 * What the page says of a session that ended under the user. The server's reasons come with the
 * signed-in strings (`sessionEnd`), which the tab it ended in has usually loaded: the sign-in
 * page's own bundle stays within its budget. A page that has not (opened anew on that history
 * entry, or whose first request met the end before the signed-in strings arrived) fetches them
 * first, and says "expired" only if they cannot be fetched.
 */
const ENDED = {
  expired: 'auth.login.sessionExpired',
  ended: 'sessionEnd.sessionEnded',
  user_deactivated: 'sessionEnd.accountDeactivated',
  enterprise_deactivated: 'sessionEnd.enterpriseDeactivated',
  role_changed: 'sessionEnd.roleChanged',
} as const satisfies Record<SessionEndNotice, string>;

/** A failed passkey sign-in, and how its module words it (the browser's refusals, the server's). */
export type PasskeyFailure = { error: unknown; words: (error: unknown, t: TFunction) => string };

type SignInNoticeProps = {
  /** Why the last sign-in failed: the API client's error, or a passkey's failure. */
  failure: unknown;
  passkeyFailure: PasskeyFailure | null;
  /** Otherwise: the second step's five minutes ran out, or the session ended under the user (and why). */
  expired: 'challenge' | SessionEndNotice | null;
};

/**
 * The sign-in page's notice above its form: why a sign-in failed, or that a session or a second
 * step expired. Most visits show none, so it loads as one is shown, not with the page (its 150 kB
 * budget, scripts/bundle-budget.mjs); the page starts loading it as a sign-in is sent, before its
 * answer can need it.
 */
export default function SignInNotice({ failure, passkeyFailure, expired }: SignInNoticeProps) {
  const { t } = useTranslation();
  const code = isApiRequestError(failure) ? failure.code : null;
  // The address's organisation requires single sign-on: not a failure, the way on (the page turns to it).
  if (code === 'sso_required' && !passkeyFailure) {
    return (
      <Alert color="blue" icon={<IconInfoCircle aria-hidden />} role="status">
        {t('errors.ssoRequired')}
      </Alert>
    );
  }
  if (code === 'sso_failed' && !passkeyFailure) {
    // Starting single sign-on: the provider does not answer (`provider_unavailable`).
    return (
      <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
        {t('auth.login.ssoUnavailable')}
      </Alert>
    );
  }
  if (failure !== null || passkeyFailure) {
    return (
      <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
        {passkeyFailure ? passkeyFailure.words(passkeyFailure.error, t) : errorMessage(failure, t, t('errors.loginFailed'))}
      </Alert>
    );
  }
  if (!expired) return null;
  return <ExpiredNotice expired={expired} />;
}

function ExpiredNotice({ expired }: { expired: 'challenge' | SessionEndNotice }) {
  const { t, i18n } = useTranslation();
  const key = expired === 'challenge' ? null : (ENDED[expired] ?? ENDED.expired);
  const missing = key !== null && !i18n.exists(key);
  const [fetched, setFetched] = useState(false);
  useEffect(() => {
    if (!missing) return;
    let live = true;
    // English only lacks them (French loads whole): its file as text, a chunk the signed-in
    // strings share.
    import('@/i18n/locales/en.json?raw').then(
      ({ default: text }) => {
        const { sessionEnd } = JSON.parse(text) as { sessionEnd: Record<string, string> };
        i18n.addResourceBundle('en', 'translation', { sessionEnd }, true, false);
        if (live) setFetched(true);
      },
      () => live && setFetched(true),
    );
    return () => {
      live = false;
    };
  }, [missing, i18n]);
  // A moment without a notice rather than "expired" read out, then corrected.
  if (missing && !fetched) return null;
  return (
    <Alert color="yellow" icon={<IconClockHour4 aria-hidden />} role="status">
      {/* The second step's strings came with it. */}
      {key === null ? t('twoStep.errors.expired') : t(key, { defaultValue: t(ENDED.expired) })}
    </Alert>
  );
}
