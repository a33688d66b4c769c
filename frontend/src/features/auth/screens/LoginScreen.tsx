import { Alert, Anchor, Button, Checkbox, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDocumentTitle } from '@mantine/hooks';
import { IconAlertCircle, IconClockHour4 } from '@tabler/icons-react';
import type { ParseKeys } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router-dom';
import { isApiRequestError } from '@/api/mutator';
import { AuthLayout } from '@/components/layouts/AuthLayout';
import { errorMessage, fieldErrorMessage } from '@/lib/errors';
import { href } from '@/lib/paths';
import { STORAGE_KEYS, readItem } from '@/lib/storage';
import { useSignIn } from '../session-hooks';

type LoginValues = { email: string; password: string; rememberMe: boolean };

// A light check: the server decides. Length rules are for setting passwords, not for signing in.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function validateEmail(value: string): ParseKeys | null {
  if (!value.trim()) return 'validation.required';
  return EMAIL_PATTERN.test(value.trim()) ? null : 'validation.email';
}

export default function LoginScreen() {
  const { t } = useTranslation();
  const location = useLocation();
  const signIn = useSignIn();
  useDocumentTitle(`${t('auth.login.pageTitle')} · ${t('app.name')}`);

  const form = useForm<LoginValues>({
    initialValues: { email: '', password: '', rememberMe: false },
    validate: {
      email: validateEmail,
      password: (value) => (value ? null : 'validation.required'),
    },
  });

  const sessionExpired = (location.state as { reason?: string } | null)?.reason === 'expired';
  const fieldError = (path: keyof LoginValues) => {
    const key = form.errors[path];
    return typeof key === 'string' ? t(key as ParseKeys) : key;
  };

  const submit = form.onSubmit(
    (values) => {
      signIn.mutate(
        {
          data: {
            email: values.email.trim(),
            password: values.password,
            rememberMe: values.rememberMe,
            deviceToken: readItem(STORAGE_KEYS.device) ?? undefined,
          },
        },
        {
          onError: (error) => {
            if (!isApiRequestError(error)) return;
            for (const [field, code] of Object.entries(error.fields)) {
              if (field === 'email' || field === 'password') form.setFieldError(field, fieldErrorMessage(code, t));
            }
          },
        },
      );
    },
    (errors) => {
      const first = (['email', 'password'] as const).find((field) => errors[field]);
      if (first) form.getInputNode(first)?.focus();
    },
  );

  return (
    <AuthLayout title={t('auth.login.title', { product: t('app.name') })} subtitle={t('auth.login.subtitle')}>
      <form onSubmit={submit} noValidate>
        <Stack>
          {sessionExpired && !signIn.error && (
            <Alert color="yellow" icon={<IconClockHour4 aria-hidden />} role="status">
              {t('auth.login.sessionExpired')}
            </Alert>
          )}
          {signIn.error && (
            <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
              {errorMessage(signIn.error, t, t('errors.loginFailed'))}
            </Alert>
          )}
          <TextInput
            {...form.getInputProps('email')}
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
            {...form.getInputProps('password')}
            error={fieldError('password')}
            label={t('auth.password')}
            autoComplete="current-password"
            required
            visibilityToggleFocusable
            visibilityToggleButtonProps={{ 'aria-label': t('auth.showPassword') }}
          />
          <Group justify="space-between" wrap="wrap" gap="xs">
            <Checkbox {...form.getInputProps('rememberMe', { type: 'checkbox' })} label={t('auth.login.rememberMe')} />
            <Anchor component={Link} to={href('forgotPassword')} size="sm">
              {t('auth.login.forgotPassword')}
            </Anchor>
          </Group>
          <Button type="submit" fullWidth loading={signIn.isPending} mt="xs">
            {t('auth.login.submit')}
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
