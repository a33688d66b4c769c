import type { TFunction } from 'i18next';
import { isApiRequestError } from '@/api/mutator';
import { errorMessage } from '@/lib/errors';

/** Why a single sign-on failed (openapi.json: `sso_failed`'s `reason`). */
export const SSO_FAILURE_REASONS = [
  'state_invalid',
  'code_rejected',
  'nonce_mismatch',
  'token_invalid',
  'email_not_allowed',
  'email_unverified',
  'identity_mismatch',
  'not_invited',
  'provider_unavailable',
] as const;
type SsoFailureReason = (typeof SSO_FAILURE_REASONS)[number];
const isReason = (value: unknown): value is SsoFailureReason => (SSO_FAILURE_REASONS as readonly unknown[]).includes(value);

/**
 * A failed `POST /auth/sso/finish` in words: each `sso_failed` reason its own; anything else as
 * the app words API errors (`account_inactive`, the network, ...). The words are the `ssoSignIn`
 * strings, which load with the callback screen, not with the sign-in page.
 */
export function ssoErrorMessage(error: unknown, t: TFunction): string {
  if (isApiRequestError(error) && error.code === 'sso_failed' && isReason(error.reason)) return t(`ssoSignIn.errors.${error.reason}`);
  return errorMessage(error, t);
}
