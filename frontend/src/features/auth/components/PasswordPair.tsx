import { PasswordInput, Stack } from '@mantine/core';
import type { ParseKeys } from 'i18next';
import { type RefObject, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiRequestError } from '@/api/mutator';
import { fieldErrorKey } from '@/lib/errors';
import { rules } from '@/lib/validation';

type Field = 'password' | 'confirm';
/** Errors are i18n keys, worded at render time: switching language re-words them. */
type Errors = Partial<Record<Field, ParseKeys>>;

/**
 * A new password typed twice (reset link, invitation): the SPEC §9 rules for setting a password
 * (at least 8 characters), the two must match, and the server's word on the password (`too_short`,
 * `too_weak`) shows under the field. A small controlled pair: the signed-out pages load no form library.
 */
export function usePasswordPair() {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const passwordRef = useRef<HTMLInputElement>(null);
  const confirmRef = useRef<HTMLInputElement>(null);

  /** Checks both fields, focuses the first wrong one; true when the pair may be sent. */
  const validate = (): boolean => {
    const found: Errors = {};
    const passwordError = rules.newPassword(password);
    if (passwordError) found.password = passwordError;
    if (!confirm) found.confirm = 'validation.required';
    else if (!passwordError && confirm !== password) found.confirm = 'validation.passwordMismatch';
    setErrors(found);
    if (found.password) passwordRef.current?.focus();
    else if (found.confirm) confirmRef.current?.focus();
    return !found.password && !found.confirm;
  };

  /** Shows the server's refusal of the password (`fields.password`) under the field; true if it did. */
  const showServerError = (error: unknown): boolean => {
    const code = isApiRequestError(error) ? error.fields.password : undefined;
    if (!code) return false;
    setErrors({ password: code === 'too_short' ? 'validation.passwordMin' : fieldErrorKey(code) });
    passwordRef.current?.focus();
    return true;
  };

  return {
    password,
    confirm,
    errors,
    validate,
    showServerError,
    fields: { password, confirm, errors, passwordRef, confirmRef, setPassword, setConfirm, setErrors },
  };
}

type PairFields = ReturnType<typeof usePasswordPair>['fields'];

export function PasswordPairFields({
  fields,
  passwordLabel,
  confirmLabel,
  autoFocus = false,
}: {
  fields: PairFields;
  passwordLabel: string;
  confirmLabel: string;
  autoFocus?: boolean;
}) {
  const { t } = useTranslation();
  const { password, confirm, errors, passwordRef, confirmRef, setPassword, setConfirm, setErrors } = fields;
  const clear = (field: Field) => setErrors((current) => (current[field] ? { ...current, [field]: undefined } : current));
  const input = (field: Field, ref: RefObject<HTMLInputElement | null>, value: string, set: (value: string) => void, label: string, description?: string) => (
    <PasswordInput
      ref={ref}
      value={value}
      onChange={(event) => {
        set(event.currentTarget.value);
        clear(field);
      }}
      error={errors[field] ? t(errors[field]) : undefined}
      label={label}
      description={description}
      autoComplete="new-password"
      required
      autoFocus={autoFocus && field === 'password'}
      visibilityToggleButtonProps={{ 'aria-label': t('auth.showPassword') }}
    />
  );
  return (
    <Stack gap="md">
      {input('password', passwordRef, password, setPassword, passwordLabel, t('validation.minLength'))}
      {input('confirm', confirmRef, confirm, setConfirm, confirmLabel)}
    </Stack>
  );
}
