import type { UseFormReturnType } from '@mantine/form';
import type { ParseKeys } from 'i18next';
import { useTranslation } from 'react-i18next';
import { type ServerFieldErrors, firstErrorField } from './form-errors';
import { translateError } from './validation';

type AnyForm<V> = Pick<UseFormReturnType<V>, 'getInputProps' | 'getInputNode' | 'setErrors' | 'errors'>;

/**
 * `form.getInputProps` whose error is translated at render time: the forms keep i18n keys as
 * errors (client rules and server answers alike), so switching language re-words them.
 */
export function useFieldProps<V>(form: AnyForm<V>) {
  const { t } = useTranslation();
  return (path: keyof V & string, options?: Parameters<AnyForm<V>['getInputProps']>[1]) => {
    const props = form.getInputProps(path, options);
    return { ...props, error: typeof props.error === 'string' ? translateError(t, props.error) : props.error };
  };
}

/** Puts the keyboard focus on the first field (in `order`) that has an error. */
export function focusFirstError<V, F extends keyof V & string>(form: AnyForm<V>, errors: Partial<Record<string, unknown>>, order: readonly F[]): void {
  const first = firstErrorField(errors, order);
  if (first) form.getInputNode(first)?.focus();
}

/** Shows a server answer's field errors on the form and focuses the first; true if any was shown. */
export function showServerErrors<V, F extends keyof V & string>(form: AnyForm<V>, mapped: ServerFieldErrors<F>, order: readonly F[]): boolean {
  const entries = Object.entries(mapped.errors);
  if (entries.length === 0) return false;
  form.setErrors(mapped.errors as Record<string, ParseKeys>);
  focusFirstError(form, mapped.errors, order);
  return true;
}
