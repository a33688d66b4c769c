import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { STORAGE_KEYS, readItem, writeItem } from '@/lib/storage';
import en from './locales/en.json';
import fr from './locales/fr.json';

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

void i18n.use(initReactI18next).init({
  resources: { en: { translation: en }, fr: { translation: fr } },
  lng: storedLocale(),
  fallbackLng: DEFAULT_LOCALE,
  supportedLngs: LOCALES,
  interpolation: { escapeValue: false }, // React escapes
  initAsync: false,
});

export { i18n };
