import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { MapPlace, Place, Session } from '@/api/generated/model';

/** The anomaly flags the server sets (openapi.json, `Session.flags`). */
export const KNOWN_FLAGS = ['new_country', 'impossible_travel'] as const;
export type KnownFlag = (typeof KNOWN_FLAGS)[number];
export const isKnownFlag = (flag: string): flag is KnownFlag => (KNOWN_FLAGS as readonly string[]).includes(flag);

/** Why a session ended (openapi.json, `Session.endReason`). */
export const END_REASONS = [
  'logout',
  'revoked',
  'user_deactivated',
  'enterprise_deactivated',
  'deleted',
  'role_changed',
  'provider_logout',
  'idle',
  'expired',
] as const;
export type EndReason = (typeof END_REASONS)[number];
const isEndReason = (reason: string): reason is EndReason => (END_REASONS as readonly string[]).includes(reason);

const DEVICE_TYPES = ['desktop', 'mobile', 'bot', 'other'] as const;
type DeviceType = (typeof DEVICE_TYPES)[number];
const isDeviceType = (value: string): value is DeviceType => (DEVICE_TYPES as readonly string[]).includes(value);

const regionNames = new Map<string, Intl.DisplayNames | null>();

/** A country's name in `locale` from its ISO 3166-1 alpha-2 code; the code itself when unknown. */
export function countryName(code: string, locale: string): string {
  if (!regionNames.has(locale)) {
    try {
      regionNames.set(locale, new Intl.DisplayNames([locale], { type: 'region', fallback: 'code' }));
    } catch {
      regionNames.set(locale, null);
    }
  }
  const upper = code.toUpperCase();
  if (!/^[A-Z]{2}$/.test(upper)) return code;
  try {
    return regionNames.get(locale)?.of(upper) ?? upper;
  } catch {
    return upper;
  }
}

/** "London, United Kingdom", the country alone, or null when the place is unknown. */
export function placeName(place: Pick<Place, 'city'> & { country?: string | null }, locale: string): string | null {
  const country = place.country ? countryName(place.country, locale) : null;
  if (place.city && country) return `${place.city}, ${country}`;
  return place.city || country;
}

/**
 * Whole units, largest first, at most two: "2 hr 5 min", "3 days 4 hr" ("2 h 5 min" in French);
 * under a minute, "< 1 min".
 */
export function formatDuration(seconds: number, locale: string): string {
  const unit = (value: number, name: 'day' | 'hour' | 'minute') =>
    new Intl.NumberFormat(locale, { style: 'unit', unit: name, unitDisplay: name === 'day' ? 'long' : 'short' }).format(value);
  const total = Math.max(0, Math.floor(seconds / 60));
  if (total === 0) return `< ${unit(1, 'minute')}`;
  const days = Math.floor(total / 1440);
  const hours = Math.floor((total % 1440) / 60);
  const minutes = total % 60;
  const parts: string[] = [];
  if (days) parts.push(unit(days, 'day'));
  if (hours) parts.push(unit(hours, 'hour'));
  if (minutes && !days) parts.push(unit(minutes, 'minute'));
  return parts.slice(0, 2).join(' ');
}

/** "Firefox 128.0 on Linux"; what is known of it otherwise. */
export function deviceName(session: Pick<Session, 'browser' | 'os' | 'deviceType'>, t: TFunction): string {
  const { browser, os } = session;
  if (browser && os) return t('monitoring.device.browserOnOs', { browser, os });
  if (browser || os) return (browser || os) as string;
  return session.deviceType && isDeviceType(session.deviceType) ? t(`monitoring.deviceTypes.${session.deviceType}`) : t('monitoring.device.unknown');
}

export function deviceTypeName(deviceType: string | null | undefined, t: TFunction): string | null {
  return deviceType && isDeviceType(deviceType) ? t(`monitoring.deviceTypes.${deviceType}`) : null;
}

export function flagName(flag: string, t: TFunction): string {
  return isKnownFlag(flag) ? t(`monitoring.flags.${flag}`) : flag;
}

export function endReasonName(reason: string | null | undefined, t: TFunction): string | null {
  if (!reason) return null;
  return isEndReason(reason) ? t(`monitoring.endReasons.${reason}`) : reason;
}

/**
 * An e-mail address cut where a line may break: after the "@" and before each dot
 * ("ada.lovelace@example.org" → "ada", ".lovelace@", "example", ".org"). Nothing else breaks it,
 * not even a hyphen.
 */
export function emailParts(email: string): string[] {
  return email.split(/(?<=@)|(?=\.)/).filter((part) => part !== '');
}

export type CompactDateTime = { date: string; time: string; full: string };

/**
 * A moment for a narrow table column, as two short lines: the day ("Mar 1", with the year when it
 * is not this year's: "Mar 1, 2025") and the time ("9:00 AM"); `full` says it all at once.
 * Null for a missing or unreadable value.
 */
export function compactDateTime(value: string | null | undefined, locale: string, options: { now?: Date; timeZone?: string } = {}): CompactDateTime | null {
  const date = value ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) return null;
  const { now = new Date(), timeZone } = options;
  const year = (moment: Date) => new Intl.DateTimeFormat('en', { year: 'numeric', timeZone }).format(moment);
  const sameYear = year(date) === year(now);
  return {
    date: new Intl.DateTimeFormat(locale, sameYear ? { month: 'short', day: 'numeric', timeZone } : { dateStyle: 'medium', timeZone }).format(date),
    time: new Intl.DateTimeFormat(locale, { timeStyle: 'short', timeZone }).format(date),
    full: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(date),
  };
}

/** A place of the map: its city and country, its country alone (a cell of several cities), or "Several places". */
export function mapPlaceName(place: Pick<MapPlace, 'city' | 'country'>, locale: string, t: TFunction): string {
  if (place.city) return placeName(place, locale) ?? place.city;
  return place.country ? t('monitoring.map.areaIn', { country: countryName(place.country, locale) }) : t('monitoring.map.area');
}

/** "12 sessions", "1,234 places", "3 flagged": a count in the interface language, plural and grouped. */
export function countText(key: 'sessionCount' | 'placeCount' | 'flaggedCount', count: number, locale: string, t: TFunction): string {
  return t(`monitoring.map.${key}`, { count, formatted: new Intl.NumberFormat(locale).format(count) });
}

/** How a session was opened (openapi.json, `Session.signInMethod`). */
export const SIGN_IN_METHODS = [
  'password',
  'password_totp',
  'password_recovery_code',
  'password_passkey',
  'passkey',
  'invitation',
  'sso',
  'sso_totp',
  'sso_recovery_code',
  'sso_passkey',
] as const;
type SignInMethod = (typeof SIGN_IN_METHODS)[number];
const isSignInMethod = (value: string): value is SignInMethod => (SIGN_IN_METHODS as readonly string[]).includes(value);

/** "Password + app code"; null when the server did not say (or said something newer). */
export function signInMethodName(method: string | null | undefined, t: TFunction): string | null {
  return method && isSignInMethod(method) ? t(`monitoring.signInMethods.${method}`) : null;
}

/** The session texts in the interface language. */
export function useSessionFormat() {
  const { t, i18n } = useTranslation();
  const locale = i18n.resolvedLanguage ?? 'en';
  return {
    locale,
    country: (code: string) => countryName(code, locale),
    place: (place: Pick<Place, 'city'> & { country?: string | null }) => placeName(place, locale) ?? t('monitoring.place.unknown'),
    device: (session: Pick<Session, 'browser' | 'os' | 'deviceType'>) => deviceName(session, t),
    deviceType: (deviceType: string | null | undefined) => deviceTypeName(deviceType, t),
    duration: (seconds: number) => formatDuration(seconds, locale),
    flag: (flag: string) => flagName(flag, t),
    endReason: (reason: string | null | undefined) => endReasonName(reason, t),
    signInMethod: (method: string | null | undefined) => signInMethodName(method, t),
    compactDateTime: (value: string | null | undefined) => compactDateTime(value, locale),
    mapPlace: (place: Pick<MapPlace, 'city' | 'country'>) => mapPlaceName(place, locale, t),
    count: (key: Parameters<typeof countText>[0], count: number) => countText(key, count, locale, t),
    /** A marker's number: 950, 1.2K, 12K (12 k in French). */
    compact: (count: number) => new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 }).format(count),
    /** A marker's name: "London, United Kingdom: 12 sessions, 3 flagged". */
    marker: (place: MapPlace) => {
      const sessions = countText('sessionCount', place.total, locale, t);
      const name = mapPlaceName(place, locale, t);
      return place.flagged > 0
        ? t('monitoring.map.markerFlagged', { place: name, sessions, flagged: countText('flaggedCount', place.flagged, locale, t) })
        : t('monitoring.map.marker', { place: name, sessions });
    },
  };
}
