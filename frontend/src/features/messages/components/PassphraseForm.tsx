import { Alert, Button, Group, PasswordInput, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconAlertCircle } from '@tabler/icons-react';
import type { ParseKeys } from 'i18next';
import { type ReactNode, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useFieldProps } from '@/lib/forms';
import { useCurrentUser } from '@/lib/session';
import { messengerError } from '../errors';
import { MIN_PASSPHRASE_SCORE, passphraseScore, preloadPassphraseStrength } from '../passphrase-strength';

/** The shortest backup passphrase accepted: it is all that protects the keys on the server. */
export const MIN_PASSPHRASE_LENGTH = 12;

type PassphraseFormProps = {
  /** `choose`: a new passphrase, typed twice; `enter`: an existing one. */
  kind: 'choose' | 'enter';
  label: string;
  submitLabel: string;
  onSubmit: (passphrase: string) => Promise<unknown>;
  /** Buttons next to the submit button. */
  extra?: ReactNode;
};

type Values = { passphrase: string; confirm: string };

/**
 * A backup passphrase: chosen (at least 12 characters, hard enough to guess for zxcvbn, typed
 * twice) or entered. Deriving the key takes a moment (600,000 PBKDF2 iterations), so the button
 * shows progress; a failure is told in the form.
 */
export function PassphraseForm({ kind, label, submitLabel, onSubmit, extra }: PassphraseFormProps) {
  const { t } = useTranslation();
  const { fullName, email: address } = useCurrentUser();
  const email = address ?? '';
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const form = useForm<Values>({
    initialValues: { passphrase: '', confirm: '' },
    validate: {
      passphrase: (value): ParseKeys | null =>
        value.length === 0 ? 'validation.required' : kind === 'choose' && value.length < MIN_PASSPHRASE_LENGTH ? 'messenger.backup.tooShort' : null,
      confirm: (value, values): ParseKeys | null => (kind === 'choose' && value !== values.passphrase ? 'messenger.backup.mismatch' : null),
    },
  });
  const field = useFieldProps(form);

  useEffect(() => {
    if (kind === 'choose') preloadPassphraseStrength();
  }, [kind]);

  const submit = form.onSubmit(async ({ passphrase }) => {
    setBusy(true);
    setFailure(null);
    try {
      // The server keeps the encrypted backup: a new passphrase must withstand guessing offline.
      if (kind === 'choose') {
        const userInputs = [fullName, ...fullName.split(/\s+/), email, email.split('@')[0]];
        if ((await passphraseScore(passphrase, userInputs)) < MIN_PASSPHRASE_SCORE) {
          form.setFieldError('passphrase', 'messenger.backup.tooWeak');
          form.getInputNode('passphrase')?.focus();
          return;
        }
      }
      await onSubmit(passphrase);
    } catch (error) {
      setFailure(messengerError(error, t));
      form.getInputNode('passphrase')?.focus();
    } finally {
      setBusy(false);
    }
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <PasswordInput
          label={label}
          description={kind === 'choose' ? t('messenger.backup.hint', { count: MIN_PASSPHRASE_LENGTH }) : undefined}
          autoComplete={kind === 'choose' ? 'new-password' : 'current-password'}
          required
          {...field('passphrase')}
        />
        {kind === 'choose' && <PasswordInput label={t('messenger.backup.confirm')} autoComplete="new-password" required {...field('confirm')} />}
        {failure && (
          <Alert color="red" variant="light" icon={<IconAlertCircle aria-hidden />} role="alert">
            {failure}
          </Alert>
        )}
        <Group gap="sm">
          <Button type="submit" loading={busy}>
            {submitLabel}
          </Button>
          {extra}
        </Group>
      </Stack>
    </form>
  );
}
