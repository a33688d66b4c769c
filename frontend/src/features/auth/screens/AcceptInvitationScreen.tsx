import { Alert, Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconAlertCircle, IconUserCheck } from '@tabler/icons-react';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useSearchParams } from 'react-router-dom';
import type { SecondFactorRequired } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { AuthLayout } from '@/components/layouts/AuthLayout';
import { errorMessage } from '@/lib/errors';
import { href } from '@/lib/paths';
import { useSession } from '@/lib/session';
import { LinkProblem } from '../components/LinkProblem';
import { PasswordPairFields, usePasswordPair } from '../components/PasswordPair';
import { SecondFactorStep, acceptInvitationAndSignIn, loadSignInSteps, needsSecondFactor, useSignOut } from '../session-hooks';

/**
 * The page an invitation e-mail links to (`/accept-invitation?token=…`): the invited person
 * chooses their password and is signed in, as by the sign-in form. Open to anyone: someone signed
 * in (another account in this browser) is asked to sign out first rather than sent away.
 */
export default function AcceptInvitationScreen() {
  const { t } = useTranslation();
  const product = t('app.name');
  useDocumentTitle(`${t('auth.accept.pageTitle')} · ${product}`);
  const current = useSession();
  const { signOut, isSigningOut } = useSignOut();
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const pair = usePasswordPair();
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [dead, setDead] = useState(!token);
  /** The password is set; the account's policy asks for a second step before the session opens. */
  const [secondStep, setSecondStep] = useState<SecondFactorRequired | null>(null);
  const [secondStepExpired, setSecondStepExpired] = useState(false);

  // Signed in while the form was being sent: this acceptance did it. On to the app.
  if (current.status === 'signed_in' && pending) return <Navigate to={href('dashboard')} replace />;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending || !pair.validate()) return;
    setPending(true);
    setFailure(null);
    void loadSignInSteps().catch(() => undefined);
    acceptInvitationAndSignIn({ token, password: pair.password })
      .then((answer) => {
        // Still pending: once the second step opens the session, on to the app.
        if (needsSecondFactor(answer)) setSecondStep(answer);
      })
      .catch((error: unknown) => {
        setPending(false);
        if (isApiRequestError(error) && error.fields.token) setDead(true);
        else if (!pair.showServerError(error)) setFailure(error);
      });
  };

  if (secondStep && current.status !== 'signed_in') {
    return (
      <SecondFactorStep
        challenge={secondStep}
        remember={false}
        onRestart={(reason) => {
          // The invitation is used up and the password chosen: what is left is a plain sign-in.
          setSecondStep(null);
          setPending(false);
          setSecondStepExpired(reason === 'expired');
        }}
      />
    );
  }

  const body = () => {
    if (secondStepExpired) {
      return (
        <LinkProblem
          title={t('twoStep.accepted.title')}
          message={t('twoStep.accepted.body')}
          action={{ to: href('login'), label: t('twoStep.accepted.signIn') }}
        />
      );
    }
    if (current.status === 'signed_in') {
      return (
        <Stack>
          <Alert color="yellow" icon={<IconUserCheck aria-hidden />} role="status">
            {t('auth.accept.signedIn', { name: current.user.fullName })}
          </Alert>
          <Group justify="space-between" wrap="wrap" gap="sm">
            <Anchor component={Link} to={href('dashboard')} fw={500}>
              {t('auth.accept.continue', { name: current.user.fullName })}
            </Anchor>
            <Button onClick={signOut} loading={isSigningOut}>
              {t('auth.accept.signOut')}
            </Button>
          </Group>
        </Stack>
      );
    }
    if (dead) {
      return <LinkProblem title={t('auth.accept.deadTitle')} message={t('auth.accept.dead')} action={{ to: href('login'), label: t('auth.forgot.back') }} />;
    }
    return (
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text>{t('auth.accept.body', { product })}</Text>
          {failure !== null && (
            <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
              {errorMessage(failure, t)}
            </Alert>
          )}
          {/* The organisation requires single sign-on: its first sign-in accepts the invitation. */}
          {isApiRequestError(failure) && failure.code === 'sso_required' && (
            <Button component={Link} to={href('login')} variant="light" fullWidth>
              {t('auth.login.sso')}
            </Button>
          )}
          <PasswordPairFields fields={pair.fields} passwordLabel={t('auth.password')} confirmLabel={t('auth.confirmPassword')} autoFocus />
          <Button type="submit" fullWidth loading={pending}>
            {t('auth.accept.submit')}
          </Button>
        </Stack>
      </form>
    );
  };

  return (
    <AuthLayout title={t('auth.accept.title', { product })} subtitle={t('app.tagline')}>
      {body()}
    </AuthLayout>
  );
}
