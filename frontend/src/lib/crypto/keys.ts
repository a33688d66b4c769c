/**
 * A user's key pairs: ECDH P-256 for HPKE key agreement, ECDSA P-256 for signatures. Made in
 * the browser; the private keys are kept as non-extractable CryptoKeys. At creation (and when
 * a backup is restored) the private keys also exist as PKCS#8 bytes, for the backup only.
 */
import { type Bytes, fromBase64, toBase64 } from './encoding';

const AGREEMENT = { name: 'ECDH', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', namedCurve: 'P-256' } as const;

export type KeyPairs = { agreement: CryptoKeyPair; signing: CryptoKeyPair };

/** Public keys as the API carries them: base64 of uncompressed points. */
export type PublicKeys = { agreementKey: string; signingKey: string };

/** The private keys as PKCS#8 (base64): only ever inside an encrypted backup. */
export type ExportedKeys = { agreement: string; signing: string };

export type NewKeys = { keys: KeyPairs; publicKeys: PublicKeys; exported: ExportedKeys };

async function publicPoint(key: CryptoKey): Promise<string> {
  return toBase64(await crypto.subtle.exportKey('raw', key));
}

/** Fresh key pairs; the returned private keys cannot be exported. */
export async function generateKeys(): Promise<NewKeys> {
  const agreement = await crypto.subtle.generateKey(AGREEMENT, true, ['deriveBits']);
  const signing = await crypto.subtle.generateKey(SIGNING, true, ['sign', 'verify']);
  const exported = {
    agreement: toBase64(await crypto.subtle.exportKey('pkcs8', agreement.privateKey)),
    signing: toBase64(await crypto.subtle.exportKey('pkcs8', signing.privateKey)),
  };
  const keys = await importPrivateKeys(exported, {
    agreementKey: await publicPoint(agreement.publicKey),
    signingKey: await publicPoint(signing.publicKey),
  });
  return { keys, exported, publicKeys: await publicKeysOf(keys) };
}

export async function publicKeysOf(keys: KeyPairs): Promise<PublicKeys> {
  return { agreementKey: await publicPoint(keys.agreement.publicKey), signingKey: await publicPoint(keys.signing.publicKey) };
}

/** Non-extractable key pairs from backed-up PKCS#8 private keys and their public points. */
export async function importPrivateKeys(exported: ExportedKeys, publicKeys: PublicKeys): Promise<KeyPairs> {
  const pub = await importPublicKeys(publicKeys);
  return {
    agreement: {
      privateKey: await crypto.subtle.importKey('pkcs8', fromBase64(exported.agreement), AGREEMENT, false, ['deriveBits']),
      publicKey: pub.agreement,
    },
    signing: {
      privateKey: await crypto.subtle.importKey('pkcs8', fromBase64(exported.signing), SIGNING, false, ['sign']),
      publicKey: pub.signing,
    },
  };
}

/** Someone's public keys, from the API. Throws on anything but P-256 points. */
export async function importPublicKeys(keys: PublicKeys): Promise<{ agreement: CryptoKey; signing: CryptoKey }> {
  return {
    agreement: await crypto.subtle.importKey('raw', fromBase64(keys.agreementKey), AGREEMENT, true, []),
    signing: await crypto.subtle.importKey('raw', fromBase64(keys.signingKey), SIGNING, true, ['verify']),
  };
}

export const rawPoint = (key: string): Bytes => fromBase64(key);
