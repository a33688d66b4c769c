import { Alert, Anchor, Button, Checkbox, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconAlertCircle, IconClockHour4 } from '@tabler/icons-react';
import type { ParseKeys, TFunction } from 'i18next';
import { type FormEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router-dom';
import type { SecondFactorRequired } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { AuthLayout } from '@/components/layouts/AuthLayout';
import { errorMessage, fieldErrorKey } from '@/lib/errors';
import { href } from '@/lib/paths';
import { STORAGE_KEYS, readItem } from '@/lib/storage';
import { SecondFactorStep, loadSignInSteps, needsSecondFactor, signIn } from '../session-hooks';

type Field = 'email' | 'password';
/** Errors are i18n keys, worded at render time: switching language re-words them. */
type FieldErrors = Partial<Record<Field, ParseKeys>>;

// A light check: the server decides. Length rules are for setting passwords, not for signing in.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function validateEmail(value: string): ParseKeys | null {
  if (!value.trim()) return 'validation.required';
  return EMAIL_PATTERN.test(value.trim()) ? null : 'validation.email';
}

function validate(email: string, password: string): FieldErrors {
  const errors: FieldErrors = {};
  const emailError = validateEmail(email);
  if (emailError) errors.email = emailError;
  if (!password) errors.password = 'validation.required';
  return errors;
}

/** A failed passkey sign-in, and how its module words it (the browser's refusals, the server's). */
type PasskeyFailure = { error: unknown; words: (error: unknown, t: TFunction) => string };

/**
 * The sign-in page: a small controlled form and a plain call of the API (no form library, no
 * query cache), so that the first page most visitors open loads little.
 */
export default function LoginScreen() {
  const { t } = useTranslation();
  const location = useLocation();
  useDocumentTitle(`${t('auth.login.pageTitle')} · ${t('app.name')}`);

  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [rememberMe, setRememberMe] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [passkeyPending, setPasskeyPending] = useState(false);
  const [passkeyFailure, setPasskeyFailure] = useState<PasskeyFailure | null>(null);
  /** After the password: the second step it asked for. */
  const [secondStep, setSecondStep] = useState<SecondFactorRequired | null>(null);
  /** The second step's five minutes passed: sign in again. */
  const [challengeExpired, setChallengeExpired] = useState(false);
  const emailInput = useRef<HTMLInputElement>(null);
  const passwordInput = useRef<HTMLInputElement>(null);

  const sessionExpired = (location.state as { reason?: string } | null)?.reason === 'expired';
  const fieldError = (field: Field) => (errors[field] ? t(errors[field]) : undefined);
  // Typing in a field clears its error.
  const clearError = (field: Field) => setErrors((current) => (current[field] ? { ...current, [field]: undefined } : current));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending || passkeyPending) return;
    const found = validate(email, password);
    setErrors(found);
    const first = (['email', 'password'] as const).find((field) => found[field]);
    if (first) {
      (first === 'email' ? emailInput : passwordInput).current?.focus();
      return;
    }
    setPending(true);
    setFailure(null);
    setPasskeyFailure(null);
    setChallengeExpired(false);
    void loadSignInSteps().catch(() => undefined);
    signIn({ email: email.trim(), password, rememberMe, deviceToken: readItem(STORAGE_KEYS.device) ?? undefined })
      .then((answer) => {
        // Signed in: the guard leaves this page. A second step: it shows instead of the form.
        if (!needsSecondFactor(answer)) return;
        setPending(false);
        setPassword('');
        setSecondStep(answer);
      })
      .catch((error: unknown) => {
        // On success the guard leaves this page; on failure the page says why.
        setPending(false);
        setFailure(error);
        if (!isApiRequestError(error)) return;
        const fromServer: FieldErrors = {};
        for (const [field, code] of Object.entries(error.fields)) {
          if (field === 'email' || field === 'password') fromServer[field] = fieldErrorKey(code);
        }
        setErrors((current) => ({ ...current, ...fromServer }));
      });
  };

  // No e-mail typed: the browser offers this site's passkeys, and the one chosen names its person.
  const signInWithPasskey = () => {
    if (pending || passkeyPending) return;
    setPasskeyPending(true);
    setFailure(null);
    setPasskeyFailure(null);
    setChallengeExpired(false);
    // WebAuthn, its calls and texts load now: not in this page's first load.
    loadSignInSteps()
      .then(({ signInWithPasskey, passkeyErrorMessage }) =>
        // Signed in: the guard leaves this page.
        signInWithPasskey(rememberMe).catch((error: unknown) => setPasskeyFailure({ error, words: passkeyErrorMessage })),
      )
      .catch(setFailure)
      .finally(() => setPasskeyPending(false));
  };

  if (secondStep) {
    return (
      <SecondFactorStep
        challenge={secondStep}
        remember={rememberMe}
        onRestart={(reason) => {
          setSecondStep(null);
          setChallengeExpired(reason === 'expired');
        }}
      />
    );
  }

  return (
    <AuthLayout title={t('auth.login.title', { product: t('app.name') })} subtitle={t('auth.login.subtitle')}>
      <form onSubmit={submit} noValidate>
        <Stack>
          {(sessionExpired || challengeExpired) && !failure && !passkeyFailure && (
            <Alert color="yellow" icon={<IconClockHour4 aria-hidden />} role="status">
              {/* The second step's strings came with it. */}
              {challengeExpired ? t('twoStep.errors.expired') : t('auth.login.sessionExpired')}
            </Alert>
          )}
          {(failure !== null || passkeyFailure) && (
            <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
              {passkeyFailure ? passkeyFailure.words(passkeyFailure.error, t) : errorMessage(failure, t, t('errors.loginFailed'))}
            </Alert>
          )}
          <TextInput
            ref={emailInput}
            value={email}
            onChange={(event) => {
              setEmail(event.currentTarget.value);
              clearError('email');
            }}
            error={fieldError('email')}
            label={t('auth.email')}
            placeholder={t('auth.emailPlaceholder')}
            type="email"
            autoComplete="username"
            inputMode="email"
            required
            autoFocus
          />
          <PasswordInput
            ref={passwordInput}
            value={password}
            onChange={(event) => {
              setPassword(event.currentTarget.value);
              clearError('password');
            }}
            error={fieldError('password')}
            label={t('auth.password')}
            autoComplete="current-password"
            required
            visibilityToggleFocusable
            visibilityToggleButtonProps={{ 'aria-label': t('auth.showPassword') }}
          />
          <Group justify="space-between" wrap="wrap" gap="xs">
            <Checkbox checked={rememberMe} onChange={(event) => setRememberMe(event.currentTarget.checked)} label={t('auth.login.rememberMe')} />
            <Anchor component={Link} to={href('forgotPassword')} size="sm">
              {t('auth.login.forgotPassword')}
            </Anchor>
          </Group>
          <Button type="submit" fullWidth loading={pending} mt="xs">
            {t('auth.login.submit')}
          </Button>
        </Stack>
      </form>
      {/* As `passkeysSupported` (components/security/passkeys/webauthn.ts) says, without loading that module here. */}
      {typeof window.PublicKeyCredential === 'function' && (
        <Button variant="default" fullWidth mt="md" loading={passkeyPending} onClick={signInWithPasskey}>
          {t('auth.login.passkey')}
        </Button>
      )}
    </AuthLayout>
  );
}
