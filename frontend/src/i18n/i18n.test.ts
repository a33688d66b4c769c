import { describe, expect, it, vi } from 'vitest';
import en from './locales/en.json';
import fr from './locales/fr.json';
import { changeLocale, currentLocale, i18n, signedOutEnglish, storedLocale } from '.';
// What the signed-in frame loads: every English string.
import { addSignedInStrings } from './signed-in';

const keysOf = (value: object, prefix = ''): string[] =>
  Object.entries(value).flatMap(([key, child]) => (child && typeof child === 'object' ? keysOf(child, `${prefix}${key}.`) : [`${prefix}${key}`]));

describe('locale', () => {
  it('switching writes localStorage `locale` and the html lang attribute', async () => {
    await changeLocale('fr');

    expect(localStorage.getItem('locale')).toBe('fr');
    expect(currentLocale()).toBe('fr');
    expect(document.documentElement.lang).toBe('fr');
    expect(i18n.t('auth.login.submit')).toBe('Se connecter');
  });

  it('reads the stored locale on start', async () => {
    localStorage.setItem('locale', 'fr');
    expect(storedLocale()).toBe('fr');

    vi.resetModules();
    const fresh = await import('.');
    await fresh.localeReady;
    expect(fresh.currentLocale()).toBe('fr');
    expect(fresh.i18n.t('errors.invalidCredentials')).toBe('E-mail ou mot de passe invalide');
  });

  it.each([null, 'de', 'EN', '', 'fr-CA'])('falls back to English for a stored %j', (value) => {
    if (value !== null) localStorage.setItem('locale', value);
    expect(storedLocale()).toBe('en');
  });

  it('has every key in both languages', () => {
    expect(keysOf(fr).sort()).toEqual(keysOf(en).sort());
  });

  it('translates role names', async () => {
    addSignedInStrings(); // again: 'reads the stored locale on start' started i18next anew
    expect(i18n.t('roles.PlatformAdmin')).toBe('Platform Administrator');
    await changeLocale('fr');
    expect(i18n.t('roles.PlatformAdmin')).toBe('Administrateur de la plateforme');
    expect(i18n.t('roles.EnterpriseCeo')).toBe('PDG');
  });

  it("loads the signed-out pages' English strings with the app, and every English string with the signed-in frame", () => {
    expect(Object.keys(signedOutEnglish).sort()).toEqual(['app', 'auth', 'errors', 'language', 'notFound', 'routeError', 'validation']);
    for (const [section, strings] of Object.entries(signedOutEnglish)) expect(strings).toEqual(en[section as keyof typeof en]);
    addSignedInStrings();
    expect(keysOf(i18n.getResourceBundle('en', 'translation') as object).sort()).toEqual(keysOf(en).sort());
  });
});
