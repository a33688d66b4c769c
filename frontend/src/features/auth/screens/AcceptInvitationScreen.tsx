import { Alert, Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconAlertCircle, IconUserCheck } from '@tabler/icons-react';
import { type FormEvent, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useSearchParams } from 'react-router-dom';
// The plain call, not a react-query hook: the signed-out pages load without react-query.
import { checkInvitation } from '@/api/generated/auth/auth';
import type { InvitationPreview, SecondFactorRequired } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { AuthLayout } from '@/components/layouts/AuthLayout';
// The e-mailed links' pages have their strings with the signed-in ones: the sign-in page does not carry them.
import '@/i18n/signed-in';
import { adoptAccountLocale } from '@/lib/account-locale';
import { errorMessage } from '@/lib/errors';
import { href } from '@/lib/paths';
import { useSession } from '@/lib/session';
import { LinkChecking, LinkProblem } from '../components/LinkProblem';
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
  useDocumentTitle(`${t('emailLinks.accept.pageTitle')} · ${product}`);
  const current = useSession();
  const { signOut, isSigningOut } = useSignOut();
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const pair = usePasswordPair();
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [dead, setDead] = useState(!token);
  /** Who the invitation is for and from, once its link is checked (null while checking, or when the check could not be made). */
  const [invitation, setInvitation] = useState<InvitationPreview | null>(null);
  /** The token whose check has answered (or could not be made). */
  const [checked, setChecked] = useState<string | null>(null);
  /** The password is set; the account's policy asks for a second step before the session opens. */
  const [secondStep, setSecondStep] = useState<SecondFactorRequired | null>(null);
  const [secondStepExpired, setSecondStepExpired] = useState(false);

  // The link is checked as the page opens: a used or expired one says so before a password is
  // typed, and a working one names the enterprise and who invited them, in the invitation's
  // language (unless this browser chose one). A check that could not be made leaves the form: sending it tells.
  const signedIn = current.status === 'signed_in';
  const checking = Boolean(token) && !signedIn && checked !== token;
  useEffect(() => {
    if (!token || signedIn) return;
    let live = true;
    // The answer and the end of the check are set in one go, so no render shows the
    // invitation's heading over the check's spinner.
    checkInvitation({ token })
      .then((preview) => {
        if (!live) return;
        setInvitation(preview);
        setChecked(token);
        void adoptAccountLocale(preview);
      })
      .catch((error: unknown) => {
        if (!live) return;
        if (isApiRequestError(error) && error.fields.token) setDead(true);
        setChecked(token);
      });
    return () => {
      live = false;
    };
  }, [token, signedIn]);

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
            {t('emailLinks.accept.signedIn', { name: current.user.fullName })}
          </Alert>
          <Group justify="space-between" wrap="wrap" gap="sm">
            <Anchor component={Link} to={href('dashboard')} fw={500}>
              {t('emailLinks.accept.continue', { name: current.user.fullName })}
            </Anchor>
            <Button onClick={signOut} loading={isSigningOut}>
              {t('emailLinks.accept.signOut')}
            </Button>
          </Group>
        </Stack>
      );
    }
    if (checking) return <LinkChecking />;
    if (dead) {
      return (
        <LinkProblem
          title={t('emailLinks.accept.deadTitle')}
          message={t('emailLinks.accept.dead')}
          action={{ to: href('login'), label: t('auth.forgot.back') }}
        />
      );
    }
    return (
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text>{t('emailLinks.accept.body', { product })}</Text>
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
            {t('emailLinks.accept.submit')}
          </Button>
        </Stack>
      </form>
    );
  };

  return (
    <AuthLayout
      title={
        invitation?.enterpriseName && !dead ? t('emailLinks.accept.join', { enterprise: invitation.enterpriseName }) : t('emailLinks.accept.title', { product })
      }
      subtitle={invitation?.invitedBy && !dead ? t('emailLinks.accept.invitedBy', { name: invitation.invitedBy }) : t('app.tagline')}
    >
      {body()}
    </AuthLayout>
  );
}
