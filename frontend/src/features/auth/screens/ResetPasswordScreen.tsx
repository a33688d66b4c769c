import { Alert, Anchor, Button, Stack, Text } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconAlertCircle, IconArrowLeft, IconCircleCheck } from '@tabler/icons-react';
import { type FormEvent, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
// The plain call, not a react-query hook: the signed-out pages load without react-query.
import { checkPasswordReset, confirmPasswordReset } from '@/api/generated/auth/auth';
import { isApiRequestError } from '@/api/mutator';
import { AuthLayout } from '@/components/layouts/AuthLayout';
// The e-mailed links' pages have their strings with the signed-in ones: the sign-in page does not carry them.
import '@/i18n/signed-in';
import { errorMessage } from '@/lib/errors';
import { href } from '@/lib/paths';
import { LinkChecking, LinkProblem } from '../components/LinkProblem';
import { PasswordPairFields, usePasswordPair } from '../components/PasswordPair';

/** The page a password reset e-mail links to (`/reset-password?token=…`): choose the new password. */
export default function ResetPasswordScreen() {
  const { t } = useTranslation();
  useDocumentTitle(`${t('emailLinks.reset.pageTitle')} · ${t('app.name')}`);
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const pair = usePasswordPair();
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [outcome, setOutcome] = useState<'checking' | 'form' | 'done' | 'dead'>(token ? 'checking' : 'dead');

  // The link is checked as the page opens: a used or expired one says so before the new password
  // is typed. A check that could not be made leaves the form: sending it tells.
  useEffect(() => {
    if (!token) return;
    let live = true;
    checkPasswordReset({ token })
      .then(() => live && setOutcome('form'))
      .catch((error: unknown) => {
        if (live) setOutcome(isApiRequestError(error) && error.fields.token ? 'dead' : 'form');
      });
    return () => {
      live = false;
    };
  }, [token]);

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
    if (outcome === 'checking') return <LinkChecking />;
    if (outcome === 'dead') {
      return (
        <LinkProblem
          title={t('emailLinks.reset.deadTitle')}
          message={t('emailLinks.reset.dead')}
          action={{ to: href('forgotPassword'), label: t('emailLinks.reset.askNew') }}
        />
      );
    }
    if (outcome === 'done') {
      return (
        <Stack>
          <Alert color="teal" icon={<IconCircleCheck aria-hidden />} title={t('emailLinks.reset.doneTitle')} role="status">
            {t('emailLinks.reset.done')}
          </Alert>
          <Button component={Link} to={href('login')} fullWidth>
            {t('emailLinks.reset.signIn')}
          </Button>
        </Stack>
      );
    }
    return (
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text>{t('emailLinks.reset.body')}</Text>
          {failure !== null && (
            <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
              {errorMessage(failure, t)}
            </Alert>
          )}
          <PasswordPairFields fields={pair.fields} passwordLabel={t('auth.newPassword')} confirmLabel={t('auth.confirmPassword')} autoFocus />
          <Button type="submit" fullWidth loading={pending}>
            {t('emailLinks.reset.submit')}
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
    <AuthLayout title={t('emailLinks.reset.title')} subtitle={t('app.tagline')}>
      {body()}
    </AuthLayout>
  );
}
