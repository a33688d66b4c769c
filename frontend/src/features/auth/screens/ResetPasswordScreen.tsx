import { Alert, Anchor, Button, Stack, Text } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconAlertCircle, IconArrowLeft, IconCircleCheck } from '@tabler/icons-react';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
// The plain call, not a react-query hook: the signed-out pages load without react-query.
import { confirmPasswordReset } from '@/api/generated/auth/auth';
import { isApiRequestError } from '@/api/mutator';
import { AuthLayout } from '@/components/layouts/AuthLayout';
import { errorMessage } from '@/lib/errors';
import { href } from '@/lib/paths';
import { LinkProblem } from '../components/LinkProblem';
import { PasswordPairFields, usePasswordPair } from '../components/PasswordPair';

/** The page a password reset e-mail links to (`/reset-password?token=…`): choose the new password. */
export default function ResetPasswordScreen() {
  const { t } = useTranslation();
  useDocumentTitle(`${t('auth.reset.pageTitle')} · ${t('app.name')}`);
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const pair = usePasswordPair();
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [outcome, setOutcome] = useState<'form' | 'done' | 'dead'>(token ? 'form' : 'dead');

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending || !pair.validate()) return;
    setPending(true);
    setFailure(null);
    confirmPasswordReset({ token, password: pair.password })
      .then(() => setOutcome('done'))
      .catch((error: unknown) => {
        if (isApiRequestError(error) && error.fields.token) setOutcome('dead');
        else if (!pair.showServerError(error)) setFailure(error);
      })
      .finally(() => setPending(false));
  };

  const body = () => {
    if (outcome === 'dead') {
      return (
        <LinkProblem title={t('auth.reset.deadTitle')} message={t('auth.reset.dead')} action={{ to: href('forgotPassword'), label: t('auth.reset.askNew') }} />
      );
    }
    if (outcome === 'done') {
      return (
        <Stack>
          <Alert color="teal" icon={<IconCircleCheck aria-hidden />} title={t('auth.reset.doneTitle')} role="status">
            {t('auth.reset.done')}
          </Alert>
          <Button component={Link} to={href('login')} fullWidth>
            {t('auth.reset.signIn')}
          </Button>
        </Stack>
      );
    }
    return (
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text>{t('auth.reset.body')}</Text>
          {failure !== null && (
            <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
              {errorMessage(failure, t)}
            </Alert>
          )}
          <PasswordPairFields fields={pair.fields} passwordLabel={t('auth.newPassword')} confirmLabel={t('auth.confirmPassword')} autoFocus />
          <Button type="submit" fullWidth loading={pending}>
            {t('auth.reset.submit')}
          </Button>
          <Anchor component={Link} to={href('login')} fw={500}>
            <IconArrowLeft size={14} aria-hidden style={{ verticalAlign: 'middle', marginInlineEnd: 4 }} />
            {t('auth.forgot.back')}
          </Anchor>
        </Stack>
      </form>
    );
  };

  return (
    <AuthLayout title={t('auth.reset.title')} subtitle={t('app.tagline')}>
      {body()}
    </AuthLayout>
  );
}
