import {
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
// The plain fetch functions: the sign-in page loads this module (lazily), without react-query.
import { finishPasskeyRegistration, startPasskeyRegistration, startPasskeySignIn } from '@/api/generated/security/security';
import type { PasskeyInfo } from '@/api/generated/model';

/*
 * The two WebAuthn ceremonies against our API. The server gives the options as JSON (WebAuthn
 * Level 3, binary members in base64url); @simplewebauthn/browser turns them into the browser's
 * call and its answer back into JSON. Failures are the browser's (a DOMException's name, kept by
 * the library's errors) or the API's: `passkeyErrorMessage` words both.
 */

/** A new passkey for the signed-in person: the server's options, the browser's prompt, then the answer, named. */
export async function registerPasskey(name: string): Promise<PasskeyInfo> {
  const { publicKey } = await startPasskeyRegistration();
  const credential = await startRegistration({ optionsJSON: publicKey as PublicKeyCredentialCreationOptionsJSON });
  return finishPasskeyRegistration({ name, credential });
}

/**
 * A passkey's answer to sign-in options: any passkey of this site the browser holds (no
 * `challenge`: the passkey names its person), or, with the `challenge` of a password sign-in
 * that asked for a second factor, one of that person's passkeys.
 */
export async function passkeyAssertion(challenge?: string): Promise<AuthenticationResponseJSON> {
  const { publicKey } = await startPasskeySignIn(challenge === undefined ? {} : { challenge });
  return startAuthentication({ optionsJSON: publicKey as PublicKeyCredentialRequestOptionsJSON });
}
