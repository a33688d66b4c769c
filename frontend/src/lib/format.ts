import { useTranslation } from 'react-i18next';

function toDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function formatDate(value: string | null | undefined, locale: string): string | null {
  const date = toDate(value);
  return date ? new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(date) : null;
}

export function formatDateTime(value: string | null | undefined, locale: string): string | null {
  const date = toDate(value);
  return date ? new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(date) : null;
}

/** A size in bytes in the language's units: `12.4 MB`, `12,4 Mo`. */
export function formatBytes(bytes: number, locale: string): string {
  const [value, unit] =
    bytes >= 1e9 ? [bytes / 1e9, 'gigabyte'] : bytes >= 1e6 ? [bytes / 1e6, 'megabyte'] : bytes >= 1e3 ? [bytes / 1e3, 'kilobyte'] : [bytes, 'byte'];
  return new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 1 }).format(value);
}

/** Dates and numbers in the interface language; `fallback` for a missing or unreadable value. */
export function useFormat() {
  const { i18n } = useTranslation();
  const locale = i18n.resolvedLanguage ?? 'en';
  return {
    locale,
    date: (value: string | null | undefined, fallback = '—') => formatDate(value, locale) ?? fallback,
    dateTime: (value: string | null | undefined, fallback = '—') => formatDateTime(value, locale) ?? fallback,
    /** A calendar date (`YYYY-MM-DD`), the same day in every time zone. */
    day: (value: string | null | undefined, fallback = '—') =>
      value && /^\d{4}-\d{2}-\d{2}$/.test(value)
        ? new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${value}T00:00:00Z`))
        : fallback,
    number: (value: number) => new Intl.NumberFormat(locale).format(value),
    bytes: (value: number) => formatBytes(value, locale),
  };
}
