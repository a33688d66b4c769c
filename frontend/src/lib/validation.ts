import type { ParseKeys } from 'i18next';

/** SPEC §9: minimum password length. */
export const MIN_PASSWORD_LENGTH = 8;

// A light check that catches typos; the server decides.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * A rule's failure: an i18n key, and after a `?` the values its text names
 * (`validation.tooLongMax?max=200`), translated when shown (`translateError`).
 */
export type FieldError = ParseKeys | `validation.tooLongMax?max=${number}`;

/** A failure's text in the current language. */
export function translateError(t: (key: ParseKeys, values?: Record<string, unknown>) => string, error: string): string {
  const [key, query] = error.split('?', 2);
  const values = Object.fromEntries([...new URLSearchParams(query ?? '')].map(([name, value]) => [name, Number.isNaN(Number(value)) ? value : Number(value)]));
  return t(key as ParseKeys, values);
}

/**
 * Form rules returning a `FieldError` (translated when shown, so that a language switch re-renders
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

  /** At most `max` characters (code points, like the server), and the message says how many. */
  maxLength:
    (max: number) =>
    (value: string): FieldError | null =>
      [...value].length > max ? `validation.tooLongMax?max=${max}` : null,
};

/** Runs rules in order and returns the first failure. */
export const all =
  <V>(...checks: ((value: V) => FieldError | null)[]) =>
  (value: V): FieldError | null => {
    for (const check of checks) {
      const failure = check(value);
      if (failure) return failure;
    }
    return null;
  };
