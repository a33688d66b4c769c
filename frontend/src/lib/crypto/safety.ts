/**
 * Safety numbers: two people compare them (in person, on a call) to know no one stands between
 * them. Each side's half is 30 digits from an iterated SHA-512 of their id and public keys (as
 * Signal does, 5,200 iterations); the number is both halves, the smaller id first, so both see
 * the same 60 digits.
 */
import { context, fromBase64, utf8 } from './encoding';
import type { PublicKeys } from './keys';

const ITERATIONS = 5200;

async function half(userId: string, keys: PublicKeys): Promise<string> {
  const input = new Uint8Array([...context('safety-number', 1, userId), ...fromBase64(keys.agreementKey), ...fromBase64(keys.signingKey)]);
  let digest = new Uint8Array(await crypto.subtle.digest('SHA-512', input));
  for (let i = 1; i < ITERATIONS; i++) {
    digest = new Uint8Array(await crypto.subtle.digest('SHA-512', new Uint8Array([...digest, ...input])));
  }
  let digits = '';
  for (let chunk = 0; chunk < 6; chunk++) {
    const five = digest.slice(chunk * 5, chunk * 5 + 5).reduce((n, b) => n * 256 + b, 0);
    digits += String(five % 100000).padStart(5, '0');
  }
  return digits;
}

export async function safetyNumber(a: { userId: string; keys: PublicKeys }, b: { userId: string; keys: PublicKeys }): Promise<string> {
  const [first, second] = a.userId < b.userId ? [a, b] : [b, a];
  return (await half(first.userId, first.keys)) + (await half(second.userId, second.keys));
}

/** Groups of five digits, for reading aloud. */
export const formatSafetyNumber = (n: string): string => n.match(/.{1,5}/g)?.join(' ') ?? n;

/** A short stable fingerprint of someone's keys, to pin the first ones seen. */
export async function keyFingerprint(keys: PublicKeys): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', utf8(`${keys.agreementKey}|${keys.signingKey}`));
  return Array.from(new Uint8Array(digest).slice(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
}
