/** The expiry choices of the form: a number of days from now, or a day picked in the calendar. */
export const EXPIRY_PRESETS = ['30', '90', '365'] as const;
export type ExpiryChoice = (typeof EXPIRY_PRESETS)[number] | 'custom';
export const DEFAULT_EXPIRY: ExpiryChoice = '90';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The local calendar day of `date` as an ISO date (`YYYY-MM-DD`). */
export function isoDay(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * The days a custom expiry may fall on: from tomorrow to a year from today. The token ends at
 * the end of that day (local time), which is then always within the server's 366 days.
 */
export function customExpiryBounds(now: Date): { min: string; max: string } {
  const day = (offset: number) => isoDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() + offset));
  return { min: day(1), max: day(365) };
}

/** The `expiresAt` to send (RFC 3339): N days from `now`, or the end of the day picked (local time). */
export function expiresAt(choice: ExpiryChoice, customDay: string, now: Date): string {
  if (choice === 'custom') {
    const [year, month, day] = customDay.split('-').map(Number);
    return new Date(year, month - 1, day, 23, 59, 59).toISOString();
  }
  return new Date(now.getTime() + Number(choice) * DAY_MS).toISOString();
}
