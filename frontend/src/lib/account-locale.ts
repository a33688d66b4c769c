import { updateMe } from '@/api/generated/auth/auth';
import type { User } from '@/api/generated/model';
import { type Locale, changeLocale, isLocale } from '@/i18n';
import { session } from './session';
import { STORAGE_KEYS, readItem } from './storage';

/**
 * After a sign-in (the form, an accepted invitation): a browser where nobody chose a language yet
 * takes the account's, and keeps it as the browser's choice. A choice already made here stays.
 */
export async function adoptAccountLocale(user: Pick<User, 'locale'>): Promise<void> {
  if (readItem(STORAGE_KEYS.locale) !== null || !isLocale(user.locale)) return;
  // A language that fails to load leaves the interface as it is; the sign-in goes on.
  await changeLocale(user.locale).catch(() => undefined);
}

/**
 * The language menu's choice, kept on the signed-in person's account as well (their e-mails, and
 * the app in the next browser they sign in from). Fire and forget: the interface has switched
 * already and never waits for this; a failure is not worth a word.
 */
export function saveLocaleToAccount(locale: Locale): void {
  const current = session.get();
  if (current.status !== 'signed_in' || current.user.locale === locale) return;
  updateMe({ locale }).then(
    (user) => {
      // Still the same session (not signed out or replaced meanwhile): keep the account as it is now.
      if (session.token() === current.token) session.updateUser(user);
    },
    () => undefined,
  );
}
