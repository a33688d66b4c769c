/**
 * What a sign-in may need after its form, in chunks of their own loaded as they are needed, not
 * in the sign-in page's first load (its 150 kB budget, scripts/bundle-budget.mjs): the second
 * step (code, authenticator set-up, recovery codes, passkey) and the sign-in with a passkey alone.
 * They share the passkey ceremonies and the signed-in strings (the second step imports them).
 */
export { default as SecondFactorStep } from './components/SecondFactorStep';
export { signInWithPasskey } from './passkey-sign-in';
export { passkeyErrorMessage } from '@/components/passkeys/webauthn';
