import { Alert, Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconAlertCircle, IconArrowLeft, IconMailCheck } from '@tabler/icons-react';
import type { ParseKeys, TFunction } from 'i18next';
import { type FormEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
// The plain call, not a react-query hook: the signed-out pages load without react-query.
import { requestPasswordReset } from '@/api/generated/auth/auth';
import { isApiRequestError, isNetworkError } from '@/api/mutator';
import { AuthLayout } from '@/components/layouts/AuthLayout';
import { errorMessage, fieldErrorKey, formatWait } from '@/lib/errors';
import { href } from '@/lib/paths';
import { rules } from '@/lib/validation';

/** What to say when the request could not be taken; null when the confirmation is to show. */
function failureText(error: unknown, t: TFunction): string | null {
  if (isNetworkError(error)) return errorMessage(error, t);
  if (!isApiRequestError(error)) return null;
  if (error.status === 429) {
    return error.retryAfter === undefined ? t('auth.forgot.tooManyNoWait') : t('auth.forgot.tooMany', { wait: formatWait(error.retryAfter, t) });
  }
  if (error.status >= 500) return errorMessage(error, t);
  return null;
}

/**
 * "Forgot password?": asks for a reset link by e-mail. The server answers the same whether an
 * account uses the address or not, and so does this page: one confirmation for every address.
 */
export default function ForgotPasswordScreen() {
  const { t } = useTranslation();
  useDocumentTitle(`${t('auth.forgot.pageTitle')} · ${t('app.name')}`);

  const [email, setEmail] = useState('');
  const [error, setError] = useState<ParseKeys | null>(null);
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const emailInput = useRef<HTMLInputElement>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    const found = rules.email(email);
    setError(found);
    if (found) {
      emailInput.current?.focus();
      return;
    }
    setPending(true);
    setFailure(null);
    requestPasswordReset({ email: email.trim() })
      .then(() => setSent(true))
      .catch((reason: unknown) => {
        const code = isApiRequestError(reason) ? reason.fields.email : undefined;
        if (code) {
          setError(fieldErrorKey(code));
          emailInput.current?.focus();
          return;
        }
        const text = failureText(reason, t);
        // Any other refusal reads as the confirmation: the page never tells whether the address is known.
        if (text) setFailure(text);
        else setSent(true);
      })
      .finally(() => setPending(false));
  };

  const backToSignIn = (
    <Anchor component={Link} to={href('login')} fw={500}>
      <IconArrowLeft size={14} aria-hidden style={{ verticalAlign: 'middle', marginInlineEnd: 4 }} />
      {t('auth.forgot.back')}
    </Anchor>
  );

  return (
    <AuthLayout title={t('auth.forgot.title')} subtitle={t('app.tagline')}>
      {sent ? (
        <Stack>
          <Alert color="teal" icon={<IconMailCheck aria-hidden />} title={t('auth.forgot.sentTitle')} role="status">
            {t('auth.forgot.sent')}
          </Alert>
          <Button
            variant="default"
            onClick={() => {
              setSent(false);
              setEmail('');
            }}
          >
            {t('auth.forgot.again')}
          </Button>
          {backToSignIn}
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            <Text>{t('auth.forgot.body')}</Text>
            {failure && (
              <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
                {failure}
              </Alert>
            )}
            <TextInput
              ref={emailInput}
              value={email}
              onChange={(event) => {
                setEmail(event.currentTarget.value);
                setError(null);
              }}
              error={error ? t(error) : undefined}
              label={t('auth.email')}
              placeholder={t('auth.emailPlaceholder')}
              type="email"
              autoComplete="username"
              inputMode="email"
              required
              autoFocus
            />
            <Button type="submit" fullWidth loading={pending}>
              {t('auth.forgot.submit')}
            </Button>
            {backToSignIn}
          </Stack>
        </form>
      )}
    </AuthLayout>
  );
}
