import { Anchor, Button, Checkbox, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import type { ParseKeys } from 'i18next';
import { Suspense, lazy, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router-dom';
import { discoverSso } from '@/api/generated/auth/auth';
import type { SecondFactorRequired, SsoDiscovered } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { AuthLayout } from '@/components/layouts/AuthLayout';
import { fieldErrorKey } from '@/lib/errors';
import { href } from '@/lib/paths';
import { STORAGE_KEYS, readItem } from '@/lib/storage';
import type { PasskeyFailure } from '../components/SignInNotice';
import { SecondFactorStep, loadSignInSteps, needsSecondFactor, signIn } from '../session-hooks';
import type { SessionEndReason } from '@/lib/session';
import { beginSsoSignIn } from '../sso-sign-in';

type Field = 'email' | 'password';
/** Errors are i18n keys, worded at render time: switching language re-words them. */
type FieldErrors = Partial<Record<Field, ParseKeys>>;

// A light check: the server decides. Length rules are for setting passwords, not for signing in.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function validateEmail(value: string): ParseKeys | null {
  if (!value.trim()) return 'validation.required';
  return EMAIL_PATTERN.test(value.trim()) ? null : 'validation.email';
}

/** `viaSso`: single sign-on asks for no password. */
function validate(email: string, password: string, viaSso: boolean): FieldErrors {
  const errors: FieldErrors = {};
  const emailError = validateEmail(email);
  if (emailError) errors.email = emailError;
  if (!password && !viaSso) errors.password = 'validation.required';
  return errors;
}

const loadNotice = () => import('../components/SignInNotice');
const SignInNotice = lazy(loadNotice);

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
  /** `sso`: leaving for the identity provider from its own button. */
  const [pending, setPending] = useState<boolean | 'sso'>(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [passkeyPending, setPasskeyPending] = useState(false);
  const [passkeyFailure, setPasskeyFailure] = useState<PasskeyFailure | null>(null);
  /** After the password: the second step it asked for. */
  const [secondStep, setSecondStep] = useState<SecondFactorRequired | null>(null);
  /** The second step's five minutes passed: sign in again. */
  const [challengeExpired, setChallengeExpired] = useState(false);
  const emailInput = useRef<HTMLInputElement>(null);
  const passwordInput = useRef<HTMLInputElement>(null);
  /** What `POST /auth/sso/discover` said of an address (its domain): single sign-on offered, or required. */
  const [discovered, setDiscovered] = useState<SsoDiscovered & { email: string }>();
  const discoverTimer = useRef<number>(undefined);
  const address = email.trim();
  const sso = discovered?.email === address && discovered.sso ? discovered : undefined;
  const ssoRequired = sso?.required === true;
  useEffect(() => () => clearTimeout(discoverTimer.current), []);

  // Asked as an address that looks complete is typed (400 ms after the last key), or at once as the field is left.
  const discover = (value: string, delay: number) => {
    clearTimeout(discoverTimer.current);
    if (!EMAIL_PATTERN.test(value) || discovered?.email === value) return;
    discoverTimer.current = window.setTimeout(
      () =>
        void discoverSso({ email: value }).then(
          (answer) => setDiscovered({ ...answer, email: value }),
          () => undefined,
        ),
      delay,
    );
  };

  // Why the last session ended, when it ended under the user (`session.expire`).
  const reason = (location.state as { reason?: SessionEndReason } | null)?.reason;
  const sessionEnd = reason && reason !== 'signed_out' && reason !== 'unverified' ? reason : null;
  const sessionExpired = sessionEnd !== null;
  const fieldError = (field: Field) => (errors[field] ? t(errors[field]) : undefined);
  // Typing in a field clears its error.
  const clearError = (field: Field) => setErrors((current) => (current[field] ? { ...current, [field]: undefined } : current));

  // On failure the page says why. A password refused because the address's organisation requires
  // single sign-on turns the page to it.
  const fail = (error: unknown) => {
    setPending(false);
    setFailure(error);
    if (!isApiRequestError(error)) return;
    if (error.code === 'sso_required') setDiscovered({ email: address, sso: true, required: true });
    const fromServer: FieldErrors = {};
    for (const [field, code] of Object.entries(error.fields)) {
      if (field === 'email' || field === 'password') fromServer[field] = fieldErrorKey(code);
    }
    setErrors((current) => ({ ...current, ...fromServer }));
  };

  /** The form's submit: the password sign-in, or single sign-on where the address's organisation requires it (or its button). */
  const submit = (event: { preventDefault(): void }, viaSso = ssoRequired) => {
    event.preventDefault();
    if (pending || passkeyPending) return;
    const found = validate(email, password, viaSso);
    setErrors(found);
    const first = (['email', 'password'] as const).find((field) => found[field]);
    if (first) {
      (first === 'email' ? emailInput : passwordInput).current?.focus();
      return;
    }
    clearTimeout(discoverTimer.current);
    void loadNotice().catch(() => undefined);
    setPending(viaSso && !ssoRequired ? 'sso' : true);
    setFailure(null);
    setPasskeyFailure(null);
    setChallengeExpired(false);
    // Off to the provider, which sends the browser back to /sign-in/sso.
    if (viaSso) return void beginSsoSignIn(address, rememberMe).catch(fail);
    void loadSignInSteps().catch(() => undefined);
    signIn({ email: address, password, rememberMe, deviceToken: readItem(STORAGE_KEYS.device) ?? undefined })
      .then((answer) => {
        // Signed in: the guard leaves this page. A second step: it shows instead of the form.
        if (!needsSecondFactor(answer)) return;
        setPending(false);
        setPassword('');
        setSecondStep(answer);
      })
      .catch(fail);
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
          {(failure !== null || passkeyFailure || sessionExpired || challengeExpired) && (
            <Suspense fallback={null}>
              <SignInNotice failure={failure} passkeyFailure={passkeyFailure} expired={challengeExpired ? 'challenge' : sessionEnd} />
            </Suspense>
          )}
          <TextInput
            ref={emailInput}
            value={email}
            onChange={(event) => {
              setEmail(event.currentTarget.value);
              clearError('email');
              discover(event.currentTarget.value.trim(), 400);
            }}
            onBlur={() => discover(address, 0)}
            error={fieldError('email')}
            label={t('auth.email')}
            placeholder={t('auth.emailPlaceholder')}
            type="email"
            autoComplete="username"
            inputMode="email"
            required
            autoFocus
          />
          {/* An organisation that requires single sign-on asks for no password here. */}
          {!ssoRequired && (
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
          )}
          <Group justify="space-between" wrap="wrap" gap="xs">
            <Checkbox checked={rememberMe} onChange={(event) => setRememberMe(event.currentTarget.checked)} label={t('auth.login.rememberMe')} />
            {!ssoRequired && (
              <Anchor component={Link} to={href('forgotPassword')} size="sm">
                {t('auth.login.forgotPassword')}
              </Anchor>
            )}
          </Group>
          <Button type="submit" fullWidth loading={pending === true} mt="xs">
            {ssoRequired ? t('auth.login.sso') : t('auth.login.submit')}
          </Button>
          {sso && !ssoRequired && (
            <Button variant="light" fullWidth loading={pending === 'sso'} onClick={(event) => submit(event, true)}>
              {t('auth.login.sso')}
            </Button>
          )}
        </Stack>
      </form>
      {/* As `passkeysSupported` (components/passkeys/webauthn.ts) says, without loading that module here. */}
      {typeof window.PublicKeyCredential === 'function' && (
        <Button variant="default" fullWidth mt="md" loading={passkeyPending} onClick={signInWithPasskey}>
          {t('auth.login.passkey')}
        </Button>
      )}
    </AuthLayout>
  );
}
