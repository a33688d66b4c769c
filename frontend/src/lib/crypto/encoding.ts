/** Bytes as the API carries them (standard base64), and text as bytes. */

export type Bytes = Uint8Array<ArrayBuffer>;

export function toBase64(bytes: Uint8Array | ArrayBuffer): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = '';
  for (let i = 0; i < view.length; i += 0x8000) binary += String.fromCharCode(...view.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Throws on text that is not base64. */
export function fromBase64(text: string): Bytes {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export const utf8 = (text: string): Bytes => new TextEncoder().encode(text) as Bytes;

export const fromUtf8 = (bytes: ArrayBuffer | Uint8Array): string => new TextDecoder('utf-8', { fatal: true }).decode(bytes);

export function randomBytes(n: number): Bytes {
  return crypto.getRandomValues(new Uint8Array(n));
}

/** Domain-separated, unambiguous input for signatures and HPKE `info`: a JSON array. */
export const context = (...parts: (string | number)[]): Bytes => utf8(JSON.stringify(['emp-messenger', ...parts]));
