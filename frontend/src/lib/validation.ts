import type { ParseKeys } from 'i18next';

/** SPEC §9: minimum password length. */
export const MIN_PASSWORD_LENGTH = 8;

// A light check that catches typos; the server decides.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Form rules returning an i18n key (translated when shown, so that a language switch re-renders
 * the message), or null when the value is fine. SPEC §5 texts.
 */
export const rules = {
  required: (value: unknown): ParseKeys | null => ((typeof value === 'string' ? value.trim() : value) ? null : 'validation.required'),

  email: (value: string): ParseKeys | null => {
    if (!value.trim()) return 'validation.required';
    return EMAIL_PATTERN.test(value.trim()) ? null : 'validation.email';
  },

  /** A new password: required and at least 8 characters (code points, like the server). */
  newPassword: (value: string): ParseKeys | null => {
    if (!value) return 'validation.required';
    return [...value].length < MIN_PASSWORD_LENGTH ? 'validation.passwordMin' : null;
  },

  /** An optional new password: empty keeps the current one. */
  optionalNewPassword: (value: string): ParseKeys | null => (value ? rules.newPassword(value) : null),

  maxLength:
    (max: number) =>
    (value: string): ParseKeys | null =>
      [...value].length > max ? 'validation.tooLong' : null,
};

/** Runs rules in order and returns the first failure. */
export const all =
  <V>(...checks: ((value: V) => ParseKeys | null)[]) =>
  (value: V): ParseKeys | null => {
    for (const check of checks) {
      const failure = check(value);
      if (failure) return failure;
    }
    return null;
  };
