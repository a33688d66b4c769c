import { Alert, Button, Loader, Stack, Text } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconAlertCircle, IconArrowLeft } from '@tabler/icons-react';
import type { ParseKeys } from 'i18next';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useLocation, useNavigate } from 'react-router-dom';
// The plain call, not a react-query hook: the signed-out pages load without react-query.
import { finishSsoSignIn } from '@/api/generated/auth/auth';
import type { SecondFactorRequired } from '@/api/generated/model';
import { AuthLayout } from '@/components/layouts/AuthLayout';
// Its strings come with the signed-in frame's (the whole English file), which the app needs next
// anyway: not with the sign-in page (its 150 kB budget).
import '@/i18n/signed-in';
import { href } from '@/lib/paths';
import { useSession } from '@/lib/session';
import { STORAGE_KEYS, readItem, removeItem } from '@/lib/storage';
import { SecondFactorStep, loadSignInSteps, needsSecondFactor, startSession } from '../session-hooks';
import { ssoErrorMessage } from '../sso-errors';
import type { SsoStart } from '../sso-sign-in';

type Outcome =
  /** The provider's answer, for the sign-in this tab started: to finish. */
  | { kind: 'finish'; code: string; state: string; remember: boolean }
  /** Refused without asking the server. */
  | { kind: 'refused'; message: ParseKeys }
  /** The server refused it. */
  | { kind: 'failed'; error: unknown }
  /** The provider asserted no second factor: ours is due before the session opens. */
  | { kind: 'second'; challenge: SecondFactorRequired; remember: boolean }
  /** The second step's five minutes passed: the provider's answer is spent, sign in again. */
  | { kind: 'expired' };

/** What the tab kept when it left for the provider (sso-sign-in.ts), if anything readable. */
function keptStart(): SsoStart | null {
  try {
    const kept: unknown = JSON.parse(readItem(STORAGE_KEYS.ssoState) ?? 'null');
    if (!kept || typeof kept !== 'object' || typeof (kept as SsoStart).state !== 'string') return null;
    return { state: (kept as SsoStart).state, remember: (kept as SsoStart).remember === true };
  } catch {
    return null;
  }
}

/** What the provider's answer in the address allows: finishing, or a refusal said at once. */
export function callbackOutcome(search: string): Outcome {
  const params = new URLSearchParams(search);
  const error = params.get('error');
  if (error) return { kind: 'refused', message: error === 'access_denied' ? 'ssoSignIn.errors.cancelled' : 'ssoSignIn.errors.providerRefused' };
  const code = params.get('code');
  const state = params.get('state');
  if (!code || !state) return { kind: 'refused', message: 'ssoSignIn.errors.incomplete' };
  // Login CSRF: a code someone else's sign-in produced, brought here by a link, is never finished.
  const started = keptStart();
  if (started?.state !== state) return { kind: 'refused', message: 'ssoSignIn.errors.notStartedHere' };
  return { kind: 'finish', code, state, remember: started.remember };
}

/**
 * `/sign-in/sso`, where the identity provider sends the browser back (`?code&state`, or `?error`).
 * The `state` must be the one this tab kept when it left (else nothing is asked of the server);
 * the code is exchanged by `POST /auth/sso/finish`, and the session opens as a password sign-in's
 * does, after the same second step when the server asks for one (the provider asserted no second
 * factor, and the person has one of ours or the enterprise requires one). The code leaves the
 * address bar and history at once.
 */
export default function SsoCallbackScreen() {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  useDocumentTitle(`${t('ssoSignIn.pageTitle')} · ${t('app.name')}`);
  const [outcome, setOutcome] = useState(() => callbackOutcome(location.search));
  const current = useSession();
  // Once, though development's StrictMode runs effects twice: a code works once.
  const finishing = useRef(false);

  useEffect(() => {
    // The tab's sign-in is used up whatever happens, and the provider's answer leaves the address.
    removeItem(STORAGE_KEYS.ssoState);
    window.history.replaceState(window.history.state, '', location.pathname);
    if (outcome.kind !== 'finish' || finishing.current) return;
    finishing.current = true;
    const { remember } = outcome;
    finishSsoSignIn({ code: outcome.code, state: outcome.state })
      .then(async (answer) => {
        if (needsSecondFactor(answer)) {
          await loadSignInSteps();
          setOutcome({ kind: 'second', challenge: answer, remember });
          return;
        }
        await startSession(answer, remember);
        // On, as after a password sign-in.
        void navigate(href('dashboard'), { replace: true });
      })
      .catch((error: unknown) => setOutcome({ kind: 'failed', error }));
    // Once, with the address the provider sent the browser to.
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  if (outcome.kind === 'second') {
    // The second step opens the session itself; then on to the app, as after a password.
    if (current.status === 'signed_in') return <Navigate to={href('dashboard')} replace />;
    return (
      <SecondFactorStep
        challenge={outcome.challenge}
        remember={outcome.remember}
        onRestart={(reason) => (reason === 'expired' ? setOutcome({ kind: 'expired' }) : void navigate(href('login'), { replace: true }))}
      />
    );
  }

  const message =
    outcome.kind === 'refused'
      ? t(outcome.message)
      : outcome.kind === 'failed'
        ? ssoErrorMessage(outcome.error, t)
        : outcome.kind === 'expired'
          ? t('ssoSignIn.errors.secondStepExpired')
          : null;

  return (
    <AuthLayout title={message ? t('ssoSignIn.failedTitle') : t('ssoSignIn.pageTitle')}>
      {message ? (
        <Stack>
          <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
            {message}
          </Alert>
          <Button component={Link} to={href('login')} replace leftSection={<IconArrowLeft size={16} aria-hidden />} fullWidth>
            {t('ssoSignIn.back')}
          </Button>
        </Stack>
      ) : (
        <Stack align="center" gap="sm" role="status">
          <Loader aria-hidden />
          <Text>{t('ssoSignIn.signingIn')}</Text>
        </Stack>
      )}
    </AuthLayout>
  );
}
