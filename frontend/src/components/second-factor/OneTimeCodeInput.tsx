import { TextInput } from '@mantine/core';
import type { Ref } from 'react';

type OneTimeCodeInputProps = {
  value: string;
  onChange: (value: string) => void;
  label: string;
  description?: string;
  error?: string;
  /** A recovery code (letters and digits) rather than an authenticator's six digits. */
  recovery?: boolean;
  autoFocus?: boolean;
  inputRef?: Ref<HTMLInputElement>;
};

/**
 * The input of a second factor's code: numeric, filled by the browser from an SMS or a password
 * manager's authenticator (`one-time-code`); a recovery code is free text.
 */
export function OneTimeCodeInput({ value, onChange, label, description, error, recovery = false, autoFocus = false, inputRef }: OneTimeCodeInputProps) {
  return (
    <TextInput
      ref={inputRef}
      value={value}
      // Six digits: spaces and dashes typed or pasted ("123 456") fall away.
      onChange={(event) => onChange(recovery ? event.currentTarget.value : event.currentTarget.value.replace(/\D/g, '').slice(0, 6))}
      label={label}
      description={description}
      error={error}
      required
      autoFocus={autoFocus}
      autoComplete={recovery ? 'off' : 'one-time-code'}
      inputMode={recovery ? 'text' : 'numeric'}
      pattern={recovery ? undefined : '[0-9]*'}
      maxLength={recovery ? 64 : undefined}
      spellCheck={false}
      autoCapitalize="off"
      data-testid={recovery ? 'recovery-code-input' : 'totp-code-input'}
      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', letterSpacing: recovery ? undefined : '0.3em' } }}
    />
  );
}

/** What is sent: the digits of a code typed with spaces ("123 456"), a recovery code trimmed. */
export const normalizeCode = (value: string, recovery: boolean) => (recovery ? value.trim() : value.replace(/\s+/g, ''));
