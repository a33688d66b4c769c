import type { ParseKeys } from 'i18next';
import { isApiRequestError } from '@/api/mutator';
import { fieldErrorKey } from './errors';

export type ServerFieldErrors<F extends string> = {
  /** i18n keys of the messages for the form's own fields, ready for `form.setErrors`. */
  errors: Partial<Record<F, ParseKeys>>;
  /** Refused fields the form does not show (so the caller can still say something). */
  unshown: string[];
};

type Options<F extends string> = {
  /** Server field name → form field name, where they differ. */
  rename?: Partial<Record<string, F>>;
  /** Fields holding a new password: `too_short` reads "Password must be at least 8 characters". */
  passwordFields?: readonly F[];
  /** The e-mail field: a 409 `conflict` that names no field (the address is taken) is shown there. */
  emailField?: F;
  /** The message of a `taken` entry on a field that is not an e-mail address (an enterprise's name). */
  takenMessages?: Partial<Record<F, ParseKeys>>;
};

/**
 * Maps an API error onto a form: each `fields` entry of a `validation_failed` or `conflict` answer
 * becomes the message of the matching form field (`taken`: a taken e-mail address, or the message
 * `takenMessages` gives for that field), and a 409 `conflict` naming no field an error on the
 * e-mail field when the form has one. Messages are i18n keys, translated when shown.
 */
export function serverFieldErrors<F extends string>(error: unknown, formFields: readonly F[], options: Options<F> = {}): ServerFieldErrors<F> {
  const result: ServerFieldErrors<F> = { errors: {}, unshown: [] };
  if (!isApiRequestError(error)) return result;
  const known = new Set<string>(formFields);

  for (const [serverField, code] of Object.entries(error.fields)) {
    const field = options.rename?.[serverField] ?? serverField;
    if (!known.has(field)) {
      result.unshown.push(serverField);
      continue;
    }
    const isPassword = options.passwordFields?.includes(field as F) ?? false;
    const taken = code === 'taken' ? options.takenMessages?.[field as F] : undefined;
    result.errors[field as F] = taken ?? (isPassword && code === 'too_short' ? 'validation.passwordMin' : fieldErrorKey(code));
  }

  const namesNoField = Object.keys(error.fields).length === 0;
  if (error.status === 409 && error.code === 'conflict' && namesNoField && options.emailField && known.has(options.emailField)) {
    result.errors[options.emailField] = 'validation.emailTaken';
  }
  return result;
}

/** The first of `order` that has an error: the field to focus after a failed submit. */
export function firstErrorField<F extends string>(errors: Partial<Record<string, unknown>>, order: readonly F[]): F | undefined {
  return order.find((field) => Boolean(errors[field]));
}
