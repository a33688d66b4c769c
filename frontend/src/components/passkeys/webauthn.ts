import type { TFunction } from 'i18next';
import { isApiRequestError } from '@/api/mutator';
import { errorMessage } from '@/lib/errors';

/** Whether this browser has WebAuthn at all (passkeys need it; so does a security key). */
export const passkeysSupported = (): boolean => typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';

/** What went wrong with a passkey, in the words of `passkeys.errors.*`. */
export type PasskeyProblem =
  'cancelled' | 'alreadyRegistered' | 'notCapable' | 'insecure' | 'unsupported' | 'rejected' | 'expired' | 'notVerified' | 'tooMany' | 'unavailable';

/** The browser's own reasons (the DOMException's `name`, which @simplewebauthn/browser's errors keep). */
const BROWSER_PROBLEMS = new Map<string, PasskeyProblem>([
  // The person closed the browser's prompt, it timed out, or no passkey answered: the browser
  // does not say which, on purpose.
  ['NotAllowedError', 'cancelled'],
  ['AbortError', 'cancelled'],
  // Registering on an authenticator that holds one of the account's passkeys already.
  ['InvalidStateError', 'alreadyRegistered'],
  // No authenticator can keep a discoverable, user-verified credential.
  ['ConstraintError', 'notCapable'],
  // The page's address is not the relying party's (an IP address, another domain).
  ['SecurityError', 'insecure'],
  ['NotSupportedError', 'unsupported'],
]);

/**
 * What went wrong in a passkey ceremony, from the browser (a DOMException's name) or from the
 * server (the API error's code or conflict reason); null when it is any other failure, worded as
 * such by `errorMessage`.
 */
export function passkeyProblem(error: unknown): PasskeyProblem | null {
  if (isApiRequestError(error)) {
    if (error.code === 'passkey_rejected') return 'rejected';
    if (error.code === 'challenge_expired') return 'expired';
    if (error.code === 'validation_failed' && error.fields.credential) return 'notVerified';
    if (error.reason === 'too_many_passkeys') return 'tooMany';
    if (error.reason === 'passkey_registered') return 'alreadyRegistered';
    if (error.reason === 'passkeys_unavailable') return 'unavailable';
    return null;
  }
  const name = typeof error === 'object' && error !== null && 'name' in error ? (error as { name: unknown }).name : undefined;
  return typeof name === 'string' ? (BROWSER_PROBLEMS.get(name) ?? null) : null;
}

/** The text to show for a failed passkey ceremony, in the interface language (`passkeys.errors.*`: a signed-in string). */
export function passkeyErrorMessage(error: unknown, t: TFunction): string {
  const problem = passkeyProblem(error);
  return problem ? t(`passkeys.errors.${problem}`) : errorMessage(error, t);
}

const BROWSERS: [RegExp, string][] = [
  [/Edg(e|A|iOS)?\//, 'Edge'],
  [/OPR\//, 'Opera'],
  [/SamsungBrowser\//, 'Samsung Internet'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|Chromium\/|CriOS\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];
const SYSTEMS: [RegExp, string][] = [
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Android/, 'Android'],
  [/CrOS/, 'ChromeOS'],
  [/Windows/, 'Windows'],
  [/Macintosh|Mac OS X/, 'macOS'],
  [/Linux/, 'Linux'],
];
const first = (list: [RegExp, string][], userAgent: string) => list.find(([pattern]) => pattern.test(userAgent))?.[1];

/** A new passkey's suggested name: where it is made ("Chrome on macOS"), to tell one's passkeys apart. */
export function defaultPasskeyName(userAgent: string, t: TFunction): string {
  const browser = first(BROWSERS, userAgent);
  const os = first(SYSTEMS, userAgent);
  if (browser && os) return t('passkeys.defaultName', { browser, os });
  return browser ?? os ?? t('passkeys.fallbackName');
}
