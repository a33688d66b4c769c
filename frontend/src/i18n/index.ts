import i18n, { type BackendModule } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { STORAGE_KEYS, readItem, writeItem } from '@/lib/storage';
// English is the default and the fallback language. Only the strings of the signed-out pages
// (sign-in, forgot password, not found, errors) are in the main bundle; the signed-in frame adds
// the others (./signed-in.ts), so that the sign-in page does not carry every screen's strings.
import { app, auth, errors, language, notFound, routeError, validation } from './locales/en.json';

/** The English strings the signed-out pages use, loaded with the app. */
export const signedOutEnglish = { app, auth, errors, language, notFound, routeError, validation };

export const LOCALES = ['en', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

export const isLocale = (value: unknown): value is Locale => LOCALES.includes(value as Locale);

/** The stored locale when it is one we have; English otherwise (SPEC §1). */
export function storedLocale(): Locale {
  const value = readItem(STORAGE_KEYS.locale);
  return isLocale(value) ? value : DEFAULT_LOCALE;
}

function applyToDocument(locale: string): void {
  document.documentElement.lang = isLocale(locale) ? locale : DEFAULT_LOCALE;
}

/** Switches the interface language and keeps the choice under localStorage `locale`. */
export async function changeLocale(locale: Locale): Promise<void> {
  writeItem(STORAGE_KEYS.locale, locale);
  await i18n.changeLanguage(locale);
}

export function currentLocale(): Locale {
  return isLocale(i18n.resolvedLanguage) ? i18n.resolvedLanguage : DEFAULT_LOCALE;
}

i18n.on('languageChanged', applyToDocument);

/**
 * English (its signed-out strings) is in the main bundle; French is a chunk of its own, fetched
 * on start when it is the stored locale and on the switch to it otherwise. i18next loads a
 * language before it changes to it, so no screen renders with missing French strings.
 */
const lazyLocales: BackendModule = {
  type: 'backend',
  init: () => {},
  read(language, _namespace, callback) {
    if (language !== 'fr') return callback(null, language === DEFAULT_LOCALE ? { ...signedOutEnglish } : {});
    import('./locales/fr.json').then(
      (module) => callback(null, module.default),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), false),
    );
  },
};

/** Settles once the start-up language is loaded (at once for English); main.tsx renders after it. */
export const localeReady: Promise<unknown> = i18n
  .use(lazyLocales)
  .use(initReactI18next)
  .init({
    // A copy: the signed-in strings are added to it (signed-in.ts).
    resources: { en: { translation: { ...signedOutEnglish } } },
    partialBundledLanguages: true,
    lng: storedLocale(),
    fallbackLng: DEFAULT_LOCALE,
    supportedLngs: LOCALES,
    interpolation: { escapeValue: false }, // React escapes
    initAsync: false,
  });

export { i18n };
