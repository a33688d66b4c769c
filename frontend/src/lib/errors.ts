import type { ParseKeys, TFunction } from 'i18next';
import { isApiRequestError, isNetworkError } from '@/api/mutator';

/** "30 seconds", "2 minutes": the wait a 429 asked for. */
export function formatWait(seconds: number, t: TFunction): string {
  return seconds < 90 ? t('errors.seconds', { count: Math.max(1, seconds) }) : t('errors.minutes', { count: Math.ceil(seconds / 60) });
}

/**
 * The text to show for a failed call, in the user's language (SPEC §8). Known error codes get
 * our translation; otherwise the server's (English) message; otherwise `fallback`.
 */
export function errorMessage(error: unknown, t: TFunction, fallback: string = t('errors.server')): string {
  if (isNetworkError(error)) return t('errors.network');
  if (!isApiRequestError(error)) return fallback;
  switch (error.code) {
    case 'invalid_credentials':
      return t('errors.invalidCredentials');
    case 'session_expired':
    case 'unauthorized':
      return t('errors.sessionExpired');
    case 'account_inactive':
      return t('errors.accountInactive');
    case 'sso_required':
      return t('errors.ssoRequired');
    case 'forbidden':
      return t('errors.notAuthorized');
    case 'not_found':
      return t('errors.notFound');
    case 'validation_failed':
      // A workbook whose formulas read too many cells or compute too long.
      if (Object.values(error.fields).includes('too_complex')) return t('errors.tooComplex');
      return t('errors.validation');
    case 'invalid_transition':
      return t('errors.invalidTransition');
    case 'rate_limited':
      return error.retryAfter === undefined ? t('errors.rateLimitedNoWait') : t('errors.rateLimited', { wait: formatWait(error.retryAfter, t) });
    case 'limit_reached':
      // Only signed-in calls meet a limit: these strings come with the signed-in ones.
      if (error.body?.limit === 'people') return t('limitReached.people');
      if (error.body?.limit === 'storageBytes') return t('limitReached.storageBytes');
      return error.retryAfter === undefined ? t('limitReached.apiCallsNoWait') : t('limitReached.apiCalls', { wait: formatWait(error.retryAfter, t) });
    case 'unavailable':
      return error.retryAfter === undefined ? t('errors.busyNoWait') : t('errors.busy', { wait: formatWait(error.retryAfter, t) });
    case 'internal':
      return t('errors.server');
    case 'conflict':
      if (error.reason === 'own_account') return t('errors.conflict.ownAccount');
      if (error.reason === 'has_reports') return t('errors.conflict.hasReports');
      if (error.reason === 'too_many_tokens') return t('errors.conflict.tooManyTokens');
      if (error.reason === 'too_many_webhooks') return t('errors.conflict.tooManyWebhooks');
      if (error.reason === 'already_accepted') return t('errors.conflict.alreadyAccepted');
      break;
  }
  if (error.status === 403) return t('errors.forbidden');
  if (error.status >= 500) return t('errors.server');
  return error.serverMessage ?? fallback;
}

/** The i18n key for one entry of a validation error's `fields` (`required`, `invalid_email`, ...). */
export function fieldErrorKey(code: string): ParseKeys {
  switch (code) {
    case 'required':
      return 'validation.required';
    case 'invalid_email':
      return 'validation.email';
    case 'too_short':
      return 'validation.minLength';
    case 'too_long':
      return 'validation.tooLong';
    case 'invalid_character':
      return 'validation.invalidCharacter';
    case 'too_weak':
      return 'validation.passwordWeak';
    case 'taken':
      return 'validation.emailTaken';
    default:
      return 'validation.general';
  }
}

/** The text for one entry of a validation error's `fields` (`required`, `invalid_email`, ...). */
export function fieldErrorMessage(code: string, t: TFunction): string {
  return t(fieldErrorKey(code));
}
