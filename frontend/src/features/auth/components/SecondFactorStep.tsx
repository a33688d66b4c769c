import { Alert, Anchor, Button, Divider, Group, Loader, Stack, Text } from '@mantine/core';
import { IconAlertCircle, IconArrowLeft, IconFingerprint } from '@tabler/icons-react';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { startLoginTotpEnrollment, verifyLogin } from '@/api/generated/auth/auth';
import type { SecondFactorRequired, TotpSetup, VerifiedLogin } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { AuthLayout } from '@/components/layouts/AuthLayout';
import { OneTimeCodeInput, normalizeCode } from '@/components/second-factor/OneTimeCodeInput';
import { passkeyAssertion } from '@/components/passkeys/ceremonies';
import { passkeyErrorMessage, passkeysSupported } from '@/components/passkeys/webauthn';
import { RecoveryCodesView } from '@/components/second-factor/RecoveryCodesView';
import { TotpSetupView } from '@/components/second-factor/TotpSetupView';
// Its strings come with the signed-in frame's (the whole English file), which the app needs next anyway.
import '@/i18n/signed-in';
import { errorMessage } from '@/lib/errors';
import { startSession } from '../session-hooks';

/**
 * The second step of a sign-in: an authenticator's code, a recovery code or a passkey's answer
 * for the challenge. The session opens at once, unless this code turned on a new authenticator:
 * its answer then carries recovery codes, to show before the caller opens the session with
 * `startSession`.
 */
async function verifySecondFactor(challenge: string, proof: { code: string } | { webauthn: unknown }, remember: boolean): Promise<VerifiedLogin> {
  const answer = await verifyLogin({ challenge, ...proof });
  if (!answer.recoveryCodes?.length) await startSession(answer, remember);
  return answer;
}

/** A sign-in whose policy requires an authenticator the account lacks: its secret, to set one up now. */
const startSignInEnrollment = (challenge: string): Promise<TotpSetup> => startLoginTotpEnrollment({ challenge });

type SecondFactorStepProps = {
  /** What the password step answered. */
  challenge: SecondFactorRequired;
  /** Keep the session beyond this browser session (the "Remember me" of the password step). */
  remember: boolean;
  /** Back to the password step; `expired` when the challenge's five minutes passed. */
  onRestart: (reason?: 'expired') => void;
};

/** A code refused, or a challenge that is over: both are 401s of the second step. */
const isWrongCode = (error: unknown) =>
  isApiRequestError(error) && (error.code === 'invalid_code' || (error.code === 'validation_failed' && Boolean(error.fields.code)));
const isExpired = (error: unknown) => isApiRequestError(error) && error.code === 'challenge_expired';

/**
 * The second step of a sign-in (after the password, or an accepted invitation): an
 * authenticator's code, a recovery code or one of the account's passkeys (the main action when
 * it is the only way). When a policy requires a second factor the account lacks, it first sets up
 * an authenticator (QR code and key, then its first code) and shows the recovery codes once,
 * before the session opens.
 */
export default function SecondFactorStep({ challenge, remember, onRestart }: SecondFactorStepProps) {
  const { t } = useTranslation();
  const product = t('app.name');
  const enrolling = challenge.enrollmentRequired;
  const canUseRecovery = !enrolling && challenge.methods.includes('recovery_code');
  const canUsePasskey = !enrolling && challenge.methods.includes('webauthn');
  /** A code is one way (an authenticator's, or a recovery code); without it, a passkey is the only one. */
  const canUseCode = enrolling || challenge.methods.includes('totp') || canUseRecovery;
  const [recovery, setRecovery] = useState(!enrolling && !challenge.methods.includes('totp') && canUseRecovery);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | undefined>();
  const [pending, setPending] = useState(false);
  const [passkeyPending, setPasskeyPending] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const [setupFailure, setSetupFailure] = useState<unknown>(null);
  const [verified, setVerified] = useState<VerifiedLogin | null>(null);
  const [opening, setOpening] = useState(false);
  const codeInput = useRef<HTMLInputElement>(null);
  const requested = useRef(false);

  const loadSetup = () => {
    setSetupFailure(null);
    startSignInEnrollment(challenge.challenge)
      .then(setSetup)
      .catch((error: unknown) => {
        if (isExpired(error)) onRestart('expired');
        else setSetupFailure(error);
      });
  };

  // Once per challenge: asking again would replace the secret being shown.
  useEffect(() => {
    if (!enrolling || requested.current) return;
    requested.current = true;
    loadSetup();
  }, [enrolling]); // eslint-disable-line react-hooks/exhaustive-deps

  const switchMethod = () => {
    setRecovery((current) => !current);
    setCode('');
    setCodeError(undefined);
    setFailure(null);
    codeInput.current?.focus();
  };

  /** Verified: the session is open (the guard leaves this page), or recovery codes show first. */
  const verifiedWith = (answer: VerifiedLogin) => {
    if (!answer.recoveryCodes?.length) return;
    setPending(false);
    setPasskeyPending(false);
    setVerified(answer);
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending || passkeyPending) return;
    const value = normalizeCode(code, recovery);
    if (!value) {
      setCodeError(t('validation.required'));
      codeInput.current?.focus();
      return;
    }
    setPending(true);
    setFailure(null);
    setCodeError(undefined);
    verifySecondFactor(challenge.challenge, { code: value }, remember)
      .then(verifiedWith)
      .catch((error: unknown) => {
        setPending(false);
        if (isExpired(error)) return onRestart('expired');
        if (isWrongCode(error)) {
          setCodeError(recovery ? t('twoStep.errors.invalidRecoveryCode') : t('twoStep.errors.invalidCode'));
          setCode('');
          codeInput.current?.focus();
          return;
        }
        setFailure(error);
      });
  };

  // The browser offers the account's passkeys; the one chosen answers the challenge.
  const verifyWithPasskey = () => {
    if (pending || passkeyPending) return;
    setPasskeyPending(true);
    setFailure(null);
    setCodeError(undefined);
    passkeyAssertion(challenge.challenge)
      .then((webauthn) => verifySecondFactor(challenge.challenge, { webauthn }, remember))
      .then(verifiedWith)
      .catch((error: unknown) => {
        setPasskeyPending(false);
        if (isExpired(error)) return onRestart('expired');
        setFailure(error);
      });
  };

  const passkeyButton = (primary: boolean) => (
    <Button
      variant={primary ? 'filled' : 'default'}
      fullWidth
      loading={passkeyPending}
      onClick={verifyWithPasskey}
      leftSection={<IconFingerprint size={18} aria-hidden />}
      autoFocus={primary}
    >
      {t('passkeys.use')}
    </Button>
  );

  const back = (
    <Group justify="center">
      <Anchor component="button" type="button" size="sm" onClick={() => onRestart()}>
        <Group gap={4} component="span" wrap="nowrap">
          <IconArrowLeft size={14} aria-hidden />
          {t('twoStep.back')}
        </Group>
      </Anchor>
    </Group>
  );

  const failureAlert = failure !== null && (
    <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
      {passkeyErrorMessage(failure, t)}
    </Alert>
  );

  if (verified?.recoveryCodes) {
    const codes = verified.recoveryCodes;
    return (
      <AuthLayout title={t('twoStep.codes.title')} subtitle={t('twoStep.codes.subtitle')}>
        <RecoveryCodesView
          codes={codes}
          doneLabel={t('twoStep.continue')}
          pending={opening}
          onDone={() => {
            setOpening(true);
            // The one way a sign-in opens a session; the guard then takes the person on.
            startSession(verified, remember).catch((error: unknown) => {
              setOpening(false);
              setFailure(error);
            });
          }}
        />
      </AuthLayout>
    );
  }

  const codeForm = (submitLabel: string) => (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        {failureAlert}
        <OneTimeCodeInput
          inputRef={codeInput}
          value={code}
          onChange={(value) => {
            setCode(value);
            setCodeError(undefined);
          }}
          label={recovery ? t('twoStep.recoveryCodeLabel') : t('twoStep.codeLabel')}
          description={recovery ? t('twoStep.recoveryCodeHint') : undefined}
          error={codeError}
          recovery={recovery}
          autoFocus
        />
        <Button type="submit" fullWidth loading={pending}>
          {submitLabel}
        </Button>
      </Stack>
    </form>
  );

  if (enrolling) {
    return (
      <AuthLayout title={t('twoStep.enroll.title')} subtitle={t('twoStep.enroll.subtitle', { product })}>
        <Stack gap="md" data-testid="sign-in-enrollment">
          <Text size="sm">{t('twoStep.enroll.body')}</Text>
          {setupFailure !== null ? (
            <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
              <Stack gap="xs" align="flex-start">
                <span>{errorMessage(setupFailure, t)}</span>
                <Button size="xs" variant="default" onClick={loadSetup}>
                  {t('common.retry')}
                </Button>
              </Stack>
            </Alert>
          ) : setup ? (
            <>
              <TotpSetupView setup={setup} />
              {codeForm(t('twoStep.enroll.submit'))}
            </>
          ) : (
            <Group justify="center" py="md">
              <Loader size="sm" role="status" aria-label={t('twoStep.enroll.loading')} />
            </Group>
          )}
          {back}
        </Stack>
      </AuthLayout>
    );
  }

  if (!canUseCode) {
    return (
      <AuthLayout title={t('twoStep.title')} subtitle={t('passkeys.secondStep')}>
        <Stack gap="md" data-testid="sign-in-passkey">
          {failureAlert}
          {passkeysSupported() ? (
            passkeyButton(true)
          ) : (
            <Alert color="yellow" variant="light">
              {t('passkeys.unsupported')}
            </Alert>
          )}
          {back}
        </Stack>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout title={t('twoStep.title')} subtitle={recovery ? t('twoStep.recoveryBody') : t('twoStep.body', { product })}>
      <Stack gap="md" data-testid="sign-in-code">
        {codeForm(t('twoStep.submit'))}
        {canUsePasskey && passkeysSupported() && (
          <>
            <Divider label={t('passkeys.or')} labelPosition="center" />
            {passkeyButton(false)}
          </>
        )}
        {canUseRecovery && (
          <Group justify="center">
            <Anchor component="button" type="button" size="sm" onClick={switchMethod}>
              {recovery ? t('twoStep.useApp') : t('twoStep.useRecovery')}
            </Anchor>
          </Group>
        )}
        {back}
      </Stack>
    </AuthLayout>
  );
}
