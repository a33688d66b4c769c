import type { TFunction } from 'i18next';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiRequestError, NetworkError } from '@/api/mutator';
import { i18n } from '@/i18n';
import '@/i18n/signed-in';
import { defaultPasskeyName, passkeyErrorMessage, passkeyProblem, passkeysSupported } from './webauthn';

let en: TFunction;
let fr: TFunction;

beforeAll(async () => {
  await i18n.loadLanguages('fr');
  en = i18n.getFixedT('en');
  fr = i18n.getFixedT('fr');
});

const refused = (status: number, body: { code: string; message: string; reason?: string; fields?: Record<string, string> }) =>
  new ApiRequestError(status, body);

describe('a failed passkey ceremony', () => {
  it.each([
    [
      'the person closed the prompt, or it timed out (NotAllowedError)',
      new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError'),
      'cancelled',
    ],
    ['the ceremony was aborted (AbortError)', new DOMException('Aborted', 'AbortError'), 'cancelled'],
    ['the authenticator holds a passkey of the account (InvalidStateError)', new DOMException('Already registered', 'InvalidStateError'), 'alreadyRegistered'],
    ['no authenticator can keep a discoverable credential (ConstraintError)', new DOMException('No', 'ConstraintError'), 'notCapable'],
    ['the address is not the relying party’s (SecurityError)', new DOMException('Bad RP', 'SecurityError'), 'insecure'],
    ['the browser cannot (NotSupportedError)', new DOMException('No', 'NotSupportedError'), 'unsupported'],
    // @simplewebauthn/browser wraps the browser's error and keeps its name.
    [
      'a library error that kept the browser’s name',
      Object.assign(new Error('The authenticator was previously registered'), { name: 'InvalidStateError' }),
      'alreadyRegistered',
    ],
    ['a passkey the server did not accept', refused(401, { code: 'passkey_rejected', message: 'Refused' }), 'rejected'],
    ['options that expired or were used', refused(401, { code: 'challenge_expired', message: 'Expired' }), 'expired'],
    ['an answer that did not verify', refused(400, { code: 'validation_failed', message: 'Check', fields: { credential: 'invalid' } }), 'notVerified'],
    ['20 passkeys already', refused(409, { code: 'conflict', message: 'Too many', reason: 'too_many_passkeys' }), 'tooMany'],
    ['a passkey registered already', refused(409, { code: 'conflict', message: 'Registered', reason: 'passkey_registered' }), 'alreadyRegistered'],
    ['a deployment without passkeys', refused(409, { code: 'conflict', message: 'Unavailable', reason: 'passkeys_unavailable' }), 'unavailable'],
  ])('is told apart: %s', (_, error, problem) => {
    expect(passkeyProblem(error)).toBe(problem);
  });

  it.each([
    ['a refused name', refused(400, { code: 'validation_failed', message: 'Check', fields: { name: 'required' } })],
    ['an inactive account', refused(403, { code: 'account_inactive', message: 'Inactive' })],
    ['a network failure', new NetworkError(new TypeError('Failed to fetch'))],
    ['an error named like an object member', Object.assign(new Error('odd'), { name: 'constructor' })],
    ['something that is not an error', 'oops'],
  ])('is any other failure when it is %s', (_, error) => {
    expect(passkeyProblem(error)).toBeNull();
  });

  it('reads as a friendly sentence in English and French', () => {
    const cancelled = new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError');
    expect(passkeyErrorMessage(cancelled, en)).toBe('The passkey request was cancelled or timed out. Try again when you are ready.');
    expect(passkeyErrorMessage(cancelled, fr)).toBe("La demande de clé d'accès a été annulée ou a expiré. Réessayez quand vous le souhaitez.");
    const rejected = refused(401, { code: 'passkey_rejected', message: 'Refused' });
    expect(passkeyErrorMessage(rejected, fr)).toBe(
      "Cette clé d'accès n'a pas été acceptée\u00a0: elle a peut-être été supprimée de son compte. Connectez-vous autrement.",
    );
  });

  it('reads as any failed call otherwise (an inactive account, the network)', () => {
    expect(passkeyErrorMessage(refused(403, { code: 'account_inactive', message: 'Inactive' }), en)).toBe(en('errors.accountInactive'));
    expect(passkeyErrorMessage(new NetworkError(new TypeError('Failed to fetch')), en)).toBe(en('errors.network'));
  });
});

describe('a new passkey’s suggested name', () => {
  it.each([
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
      'Safari on macOS',
      'Safari sur macOS',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 Edg/124.0',
      'Edge on Windows',
      'Edge sur Windows',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0 Safari/537.36', 'Chrome on Linux', 'Chrome sur Linux'],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
      'Chrome on Android',
      'Chrome sur Android',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      'Safari on iOS',
      'Safari sur iOS',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox on Linux', 'Firefox sur Linux'],
  ])('names where it is made: %s', (userAgent, english, french) => {
    expect(defaultPasskeyName(userAgent, en)).toBe(english);
    expect(defaultPasskeyName(userAgent, fr)).toBe(french);
  });

  it('falls back to a plain name for a browser it does not know', () => {
    expect(defaultPasskeyName('curl/8.5.0', en)).toBe('My passkey');
    expect(defaultPasskeyName('curl/8.5.0', fr)).toBe("Ma clé d'accès");
  });
});

describe('passkey support', () => {
  it('follows whether the browser has WebAuthn (PublicKeyCredential)', () => {
    vi.stubGlobal('PublicKeyCredential', undefined);
    expect(passkeysSupported()).toBe(false);
    vi.stubGlobal('PublicKeyCredential', class PublicKeyCredential {});
    expect(passkeysSupported()).toBe(true);
  });
});
