import { describe, expect, it } from 'vitest';
import { parseDay } from './DateField';

describe('parseDay', () => {
  it('reads a day as written in the interface language, and an ISO date, as an ISO date', () => {
    expect(parseDay('15/01/2026', 'fr')).toBe('2026-01-15');
    expect(parseDay('01/15/2026', 'en')).toBe('2026-01-15');
    expect(parseDay(' 2026-01-15 ', 'fr')).toBe('2026-01-15');
  });

  it('refuses what is not a whole day in that format (no month 15, no half-typed year)', () => {
    expect(parseDay('01/15/2026', 'fr')).toBeNull();
    expect(parseDay('15/01/2026', 'en')).toBeNull();
    expect(parseDay('15/01/202', 'fr')).toBeNull();
    expect(parseDay('31/02/2026', 'fr')).toBeNull();
  });
});
