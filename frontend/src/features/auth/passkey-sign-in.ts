import { finishPasskeySignIn } from '@/api/generated/security/security';
import { passkeyAssertion } from '@/components/passkeys/ceremonies';
import { startSession } from './session-hooks';

/**
 * Sign in with a passkey alone (no e-mail typed): the browser offers the passkeys of this site it
 * holds, the one chosen names its person, and the session opens as a password sign-in's does
 * (`startSession`); the guard then takes the person on. Loaded with the sign-in's later steps
 * (sign-in-steps.ts) as the sign-in page's passkey button is used.
 */
export async function signInWithPasskey(remember: boolean): Promise<void> {
  const credential = await passkeyAssertion();
  const answer = await finishPasskeySignIn({ credential, rememberMe: remember });
  await startSession(answer, remember);
}
