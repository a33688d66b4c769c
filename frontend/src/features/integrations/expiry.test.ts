import { describe, expect, it } from 'vitest';
import { customExpiryBounds, expiresAt } from './expiry';

describe('a token’s expiry', () => {
  const now = new Date(2026, 2, 10, 15, 30); // 10 March 2026, 15:30 local time

  it('is a number of days from now for the presets', () => {
    expect(expiresAt('30', '', now)).toBe(new Date(now.getTime() + 30 * 86_400_000).toISOString());
    expect(expiresAt('90', '', now)).toBe(new Date(now.getTime() + 90 * 86_400_000).toISOString());
    expect(expiresAt('365', '', now)).toBe(new Date(now.getTime() + 365 * 86_400_000).toISOString());
  });

  it('is the end of the day picked, which may be from tomorrow to a year from today', () => {
    expect(expiresAt('custom', '2026-06-01', now)).toBe(new Date(2026, 5, 1, 23, 59, 59).toISOString());
    expect(customExpiryBounds(now)).toEqual({ min: '2026-03-11', max: '2027-03-10' });
  });
});
