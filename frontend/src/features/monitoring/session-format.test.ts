import { describe, expect, it } from 'vitest';
import { changeLocale, i18n } from '@/i18n';
import '@/i18n/signed-in';
import { compactDateTime, countryName, deviceName, emailParts, formatDuration, placeName, signInMethodName } from './session-format';

describe('session texts', () => {
  it.each([
    [0, '< 1 min', '< 1 min'],
    [59, '< 1 min', '< 1 min'],
    [2700, '45 min', '45 min'],
    [7500, '2 hr 5 min', '2 h 5 min'],
    [3 * 86400 + 4 * 3600 + 300, '3 days 4 hr', '3 jours 4 h'],
  ])('humanises %i seconds of activity', (seconds, english, french) => {
    // French (and at times English) puts no-break spaces between number and unit.
    const spaced = (text: string) => text.replace(/\s/g, ' ');
    expect(spaced(formatDuration(seconds, 'en'))).toBe(english);
    expect(spaced(formatDuration(seconds, 'fr'))).toBe(french);
  });

  it('names countries in the interface language, and keeps a code it does not know', () => {
    expect(countryName('GB', 'en')).toBe('United Kingdom');
    expect(countryName('se', 'fr')).toBe('Suède');
    expect(countryName('not a code', 'en')).toBe('not a code');
  });

  it('says what is known of a place', () => {
    expect(placeName({ city: 'Milton', country: 'US' }, 'en')).toBe('Milton, United States');
    expect(placeName({ city: null, country: 'US' }, 'fr')).toBe('États-Unis');
    expect(placeName({ city: null, country: null }, 'en')).toBeNull();
  });

  it('says what is known of a device', () => {
    const t = i18n.getFixedT('en');
    expect(deviceName({ browser: 'Firefox 128.0', os: 'Linux', deviceType: 'desktop' }, t)).toBe('Firefox 128.0 on Linux');
    expect(deviceName({ browser: null, os: 'Android', deviceType: 'mobile' }, t)).toBe('Android');
    expect(deviceName({ browser: null, os: null, deviceType: 'mobile' }, t)).toBe('Mobile');
    expect(deviceName({ browser: null, os: null, deviceType: null }, t)).toBe('Unknown device');
  });

  it.each([
    ['password', 'Password', 'Mot de passe'],
    ['password_totp', 'Password + app code', "Mot de passe + code d'application"],
    ['password_recovery_code', 'Password + recovery code', 'Mot de passe + code de secours'],
    ['password_passkey', 'Password + passkey', "Mot de passe + clé d'accès"],
    ['passkey', 'Passkey', "Clé d'accès"],
    ['invitation', 'Invitation', 'Invitation'],
    ['sso', 'Single sign-on', 'Authentification unique'],
    ['sso_totp', 'Single sign-on + app code', "Authentification unique + code d'application"],
    ['sso_recovery_code', 'Single sign-on + recovery code', 'Authentification unique + code de secours'],
    ['sso_passkey', 'Single sign-on + passkey', "Authentification unique + clé d'accès"],
  ])('names the sign-in method %s', async (method, en, fr) => {
    expect(signInMethodName(method, i18n.getFixedT('en'))).toBe(en);
    await changeLocale('fr');
    expect(signInMethodName(method, i18n.getFixedT('fr'))).toBe(fr);
    await changeLocale('en');
  });

  it('says nothing of a sign-in method it does not know', () => {
    expect(signInMethodName('smart_card', i18n.getFixedT('en'))).toBeNull();
    expect(signInMethodName(null, i18n.getFixedT('en'))).toBeNull();
  });
});

describe('table texts', () => {
  it('cuts an e-mail address only after the "@" and before a dot', () => {
    expect(emailParts('ada.lovelace@example.org')).toEqual(['ada', '.lovelace@', 'example', '.org']);
    expect(emailParts('mon-ceo-a-1732@e2e.test')).toEqual(['mon-ceo-a-1732@', 'e2e', '.test']);
    expect(emailParts('plain')).toEqual(['plain']);
    expect(emailParts('ada.lovelace@example.org').join('')).toBe('ada.lovelace@example.org');
  });

  it('gives a moment as a short day and a time, with the year only when it is not this one', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    const spaced = (parts: ReturnType<typeof compactDateTime>) =>
      parts && Object.fromEntries(Object.entries(parts).map(([key, text]) => [key, text.replace(/\s/g, ' ')]));
    expect(spaced(compactDateTime('2026-03-01T09:05:00Z', 'en', { now, timeZone: 'UTC' }))).toEqual({
      date: 'Mar 1',
      time: '9:05 AM',
      full: 'Mar 1, 2026, 9:05 AM',
    });
    expect(spaced(compactDateTime('2026-03-01T09:05:00Z', 'fr', { now, timeZone: 'UTC' }))).toEqual({
      date: '1 mars',
      time: '09:05',
      full: '1 mars 2026, 09:05',
    });
    expect(spaced(compactDateTime('2025-12-31T23:30:00Z', 'en', { now, timeZone: 'UTC' }))).toEqual({
      date: 'Dec 31, 2025',
      time: '11:30 PM',
      full: 'Dec 31, 2025, 11:30 PM',
    });
    expect(compactDateTime(null, 'en')).toBeNull();
    expect(compactDateTime('not a date', 'en')).toBeNull();
  });
});
