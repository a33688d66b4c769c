import { i18n } from '.';
// The whole English file as text, a module of its own: the main bundle keeps only the signed-out
// strings that index.ts imports by name.
import enText from './locales/en.json?raw';

const en = JSON.parse(enText) as typeof import('./locales/en.json');

/**
 * Adds every English string, the signed-in screens' included, to the signed-out ones that load
 * with the app. Done once this module loads: the signed-in frame imports it, so its strings
 * arrive with it.
 */
export function addSignedInStrings(): void {
  i18n.addResourceBundle('en', 'translation', en, true, true);
}

addSignedInStrings();
