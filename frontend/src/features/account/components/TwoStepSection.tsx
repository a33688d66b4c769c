import { Alert, Badge, Button, Group, Loader, Modal, PasswordInput, SegmentedControl, Stack, Text } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import type { TFunction } from 'i18next';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MfaStatus, RecoveryCodes, Reauthentication, TotpSetup } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { QueryError } from '@/components/data/QueryError';
import { OneTimeCodeInput, normalizeCode } from '@/components/second-factor/OneTimeCodeInput';
import { RecoveryCodesView } from '@/components/second-factor/RecoveryCodesView';
import { TotpSetupView } from '@/components/second-factor/TotpSetupView';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notify';
import { useConfirmTotpMutation, useDisableTotpMutation, useMfaStatus, useRegenerateRecoveryCodesMutation, useStartTotpMutation } from '../api';

/** A button whose label may take two lines. */
const WRAP = { label: { whiteSpace: 'normal', textAlign: 'center', lineHeight: 1.3 } } as const;

const LOW_CODES = 3;

/** A refused code or password: 400 with the field named (or a 401 `invalid_code`). */
function wrongField(error: unknown): 'code' | 'password' | null {
  if (!isApiRequestError(error)) return null;
  if (error.fields.code || error.code === 'invalid_code') return 'code';
  if (error.fields.password) return 'password';
  return null;
}

/**
 * Setting up an authenticator: its QR code and key, its first code, then the recovery codes,
 * shown once. While they show, only "Done" (after ticking that they are kept) closes it.
 */
function SetupDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const start = useStartTotpMutation();
  const confirm = useConfirmTotpMutation();
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const [codes, setCodes] = useState<RecoveryCodes | null>(null);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | undefined>();
  const codeInput = useRef<HTMLInputElement>(null);

  const begin = () => start.mutate(undefined, { onSuccess: setSetup });
  useEffect(() => {
    if (opened && !setup && !start.isPending && !start.isError) begin();
  }, [opened]); // eslint-disable-line react-hooks/exhaustive-deps

  const reset = () => {
    setSetup(null);
    setCodes(null);
    setCode('');
    setCodeError(undefined);
    start.reset();
    confirm.reset();
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = normalizeCode(code, false);
    if (!value) {
      setCodeError(t('validation.required'));
      return codeInput.current?.focus();
    }
    confirm.mutate(value, {
      onSuccess: (answer) => {
        // Said once the codes are put away (Done): no toast over the dialog that shows them.
        setCodes(answer);
      },
      onError: (error) => {
        if (wrongField(error) === 'code') {
          setCodeError(t('twoStep.errors.invalidCode'));
          setCode('');
          codeInput.current?.focus();
        }
      },
    });
  };

  const showingCodes = codes !== null;
  const body = () => {
    if (codes) {
      const done = () => {
        notify.success('profile.twoStep', t('profile.twoStep.enabled'));
        onClose();
      };
      return <RecoveryCodesView codes={codes.recoveryCodes} doneLabel={t('profile.twoStep.done')} onDone={done} />;
    }
    if (start.isError) {
      return (
        <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
          <Stack gap="xs" align="flex-start">
            <span>{errorMessage(start.error, t)}</span>
            <Button size="xs" variant="default" onClick={begin}>
              {t('common.retry')}
            </Button>
          </Stack>
        </Alert>
      );
    }
    if (!setup) {
      return (
        <Group justify="center" py="lg">
          <Loader size="sm" role="status" aria-label={t('app.loading')} />
        </Group>
      );
    }
    const otherFailure = confirm.isError && wrongField(confirm.error) !== 'code';
    return (
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <TotpSetupView setup={setup} />
          {otherFailure && (
            <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
              {errorMessage(confirm.error, t)}
            </Alert>
          )}
          <OneTimeCodeInput
            inputRef={codeInput}
            value={code}
            onChange={(value) => {
              setCode(value);
              setCodeError(undefined);
            }}
            label={t('twoStep.codeLabel')}
            description={t('profile.twoStep.firstCodeHint')}
            error={codeError}
            autoFocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={confirm.isPending}>
              {t('profile.twoStep.turnOn')}
            </Button>
          </Group>
        </Stack>
      </form>
    );
  };

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      onExitTransitionEnd={reset}
      title={showingCodes ? t('twoStep.codes.title') : t('profile.twoStep.setupTitle')}
      size="lg"
      closeOnClickOutside={false}
      closeOnEscape={!showingCodes}
      withCloseButton={!showingCodes}
    >
      <div data-testid="two-step-setup-dialog">{body()}</div>
    </Modal>
  );
}

type ProofPurpose = 'regenerate' | 'disable';

/**
 * Proof that it is the person (a code from the app, a recovery code, or the password) before a
 * change of the second factor: turning it off, or new recovery codes (then shown once).
 */
function ProofDialog({ purpose, required, passkeys, onClose }: { purpose: ProofPurpose | null; required: boolean; passkeys: number; onClose: () => void }) {
  const { t } = useTranslation();
  const disable = useDisableTotpMutation();
  const regenerate = useRegenerateRecoveryCodesMutation();
  const [shown, setShown] = useState<ProofPurpose>('disable');
  const [kind, setKind] = useState<'code' | 'password'>('code');
  const [value, setValue] = useState('');
  const [fieldError, setFieldError] = useState<string | undefined>();
  const [codes, setCodes] = useState<string[] | null>(null);
  const input = useRef<HTMLInputElement>(null);
  if (purpose && purpose !== shown) setShown(purpose);
  const mutation = shown === 'disable' ? disable : regenerate;

  const reset = () => {
    setKind('code');
    setValue('');
    setFieldError(undefined);
    setCodes(null);
    disable.reset();
    regenerate.reset();
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const given = kind === 'code' ? normalizeCode(value, true) : value;
    if (!given) {
      setFieldError(t('validation.required'));
      return input.current?.focus();
    }
    const proof: Reauthentication = kind === 'code' ? { code: given.replace(/^(\d{3})\s?(\d{3})$/, '$1$2') } : { password: given };
    const onError = (error: unknown) => {
      const wrong = wrongField(error);
      if (wrong) {
        setFieldError(wrong === 'code' ? t('profile.twoStep.proof.codeWrong') : t('profile.twoStep.proof.passwordWrong'));
        input.current?.focus();
      }
    };
    if (shown === 'disable') {
      disable.mutate(proof, {
        onSuccess: () => {
          notify.success('profile.twoStep', t('profile.twoStep.disabled'));
          onClose();
        },
        onError,
      });
    } else {
      regenerate.mutate(proof, {
        onSuccess: (answer) => {
          // Said once the codes are put away (Done), not over the dialog that shows them.
          setCodes(answer.recoveryCodes);
        },
        onError,
      });
    }
  };

  const otherFailure = mutation.isError && !wrongField(mutation.error);
  const title = codes ? t('twoStep.codes.title') : shown === 'disable' ? t('profile.twoStep.disableTitle') : t('profile.twoStep.regenerateTitle');

  return (
    <Modal
      opened={purpose !== null}
      onClose={onClose}
      onExitTransitionEnd={reset}
      title={title}
      size={codes ? 'lg' : 'md'}
      closeOnClickOutside={false}
      closeOnEscape={!codes}
      withCloseButton={!codes}
    >
      {codes ? (
        <RecoveryCodesView
          codes={codes}
          doneLabel={t('profile.twoStep.done')}
          onDone={() => {
            notify.success('profile.twoStep', t('profile.twoStep.regenerated'));
            onClose();
          }}
        />
      ) : (
        <form onSubmit={submit} noValidate data-testid="two-step-proof-dialog">
          <Stack gap="md">
            <Text size="sm">
              {shown === 'regenerate'
                ? t('profile.twoStep.regenerateBody')
                : passkeys > 0
                  ? t('profile.twoStep.disableBodyPasskeys')
                  : t('profile.twoStep.disableBody')}
            </Text>
            {/* Passkeys stand for a second factor too: the policy stays met without the app. */}
            {shown === 'disable' && required && passkeys === 0 && (
              <Alert color="yellow" variant="light">
                {t('profile.twoStep.disableRequired')}
              </Alert>
            )}
            {otherFailure && (
              <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
                {errorMessage(mutation.error, t)}
              </Alert>
            )}
            <SegmentedControl
              value={kind}
              onChange={(next) => {
                setKind(next === 'password' ? 'password' : 'code');
                setValue('');
                setFieldError(undefined);
              }}
              data={[
                { value: 'code', label: t('profile.twoStep.proof.withCode') },
                { value: 'password', label: t('profile.twoStep.proof.withPassword') },
              ]}
              aria-label={t('profile.twoStep.proof.how')}
            />
            {kind === 'code' ? (
              <OneTimeCodeInput
                inputRef={input}
                value={value}
                onChange={(next) => {
                  setValue(next);
                  setFieldError(undefined);
                }}
                label={t('profile.twoStep.proof.codeLabel')}
                description={t('profile.twoStep.proof.codeHint')}
                error={fieldError}
                recovery
                autoFocus
              />
            ) : (
              <PasswordInput
                ref={input}
                value={value}
                onChange={(event) => {
                  setValue(event.currentTarget.value);
                  setFieldError(undefined);
                }}
                label={t('profile.password.current')}
                error={fieldError}
                required
                autoComplete="current-password"
                autoFocus
                visibilityToggleButtonProps={{ 'aria-label': t('auth.showPassword') }}
              />
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" color={shown === 'disable' ? 'red' : undefined} loading={mutation.isPending}>
                {shown === 'disable' ? t('profile.twoStep.disableConfirm') : t('profile.twoStep.regenerateConfirm')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

/** What a password sign-in asks for after the password: the app's code, a passkey, either, or nothing. */
function statusBody(status: MfaStatus, t: TFunction): string {
  if (status.totpEnabled) return status.passkeys > 0 ? t('profile.twoStep.bothBody') : t('profile.twoStep.onBody');
  return status.passkeys > 0 ? t('profile.twoStep.passkeysBody') : t('profile.twoStep.offBody');
}

function StatusView({ status, onSetUp, onProof }: { status: MfaStatus; onSetUp: () => void; onProof: (purpose: ProofPurpose) => void }) {
  const { t } = useTranslation();
  // The app's own actions follow the app; the state shown follows any second factor (passkeys too).
  const on = status.totpEnabled;
  const protectedBy = on || status.passkeys > 0;
  return (
    <Stack gap="md">
      <Group gap="sm" wrap="wrap">
        <Badge color={protectedBy ? 'teal' : 'gray'} variant="light" style={{ textTransform: 'none' }} data-testid="two-step-status">
          {protectedBy ? t('profile.twoStep.on') : t('profile.twoStep.off')}
        </Badge>
        <Text size="sm">{statusBody(status, t)}</Text>
      </Group>
      {status.required && (
        <Alert color={protectedBy ? 'blue' : 'yellow'} variant="light" data-testid="two-step-required">
          {protectedBy ? t('profile.twoStep.requiredOn') : t('profile.twoStep.requiredOff')}
        </Alert>
      )}
      {on && (
        <Text size="sm" c={status.recoveryCodesLeft <= LOW_CODES ? 'orange.8' : undefined} data-testid="recovery-codes-left">
          {t('profile.twoStep.codesLeft', { count: status.recoveryCodesLeft })}
          {status.recoveryCodesLeft <= LOW_CODES && ` ${t('profile.twoStep.codesLow')}`}
        </Text>
      )}
      <Group justify="flex-end" gap="sm">
        {on ? (
          <>
            <Button variant="default" onClick={() => onProof('regenerate')}>
              {t('profile.twoStep.regenerate')}
            </Button>
            <Button variant="light" color="red" onClick={() => onProof('disable')}>
              {t('profile.twoStep.disable')}
            </Button>
          </>
        ) : (
          // The French label is long: it wraps on a phone rather than overflowing.
          <Button onClick={onSetUp} h="auto" mih={36} py={6} maw="100%" styles={WRAP}>
            {t('profile.twoStep.setUp')}
          </Button>
        )}
      </Group>
    </Stack>
  );
}

/** The profile's "Two-step sign-in": its state, setting up an authenticator, new recovery codes, turning it off. */
export function TwoStepContent() {
  const { t } = useTranslation();
  const status = useMfaStatus();
  const [settingUp, setSettingUp] = useState(false);
  const [proof, setProof] = useState<ProofPurpose | null>(null);

  const body = () => {
    if (status.isPending) {
      return (
        <Group justify="center" py="sm">
          <Loader size="sm" role="status" aria-label={t('app.loading')} />
        </Group>
      );
    }
    if (status.isError) return <QueryError error={status.error} onRetry={() => void status.refetch()} retrying={status.isFetching} />;
    return <StatusView status={status.data} onSetUp={() => setSettingUp(true)} onProof={setProof} />;
  };

  return (
    <>
      {body()}
      <SetupDialog opened={settingUp} onClose={() => setSettingUp(false)} />
      <ProofDialog purpose={proof} required={status.data?.required ?? false} passkeys={status.data?.passkeys ?? 0} onClose={() => setProof(null)} />
    </>
  );
}
