import { describe, expect, it } from 'vitest';
import { generateKeys } from './keys';
import { formatSafetyNumber, keyFingerprint, safetyNumber } from './safety';

describe('safety numbers', () => {
  it('are the same 60 digits on both sides and change with either key', async () => {
    const [a, b, c] = await Promise.all([generateKeys(), generateKeys(), generateKeys()]);
    const ab = await safetyNumber({ userId: 'a', keys: a.publicKeys }, { userId: 'b', keys: b.publicKeys });
    expect(ab).toMatch(/^\d{60}$/);
    expect(await safetyNumber({ userId: 'b', keys: b.publicKeys }, { userId: 'a', keys: a.publicKeys })).toBe(ab);
    expect(await safetyNumber({ userId: 'a', keys: a.publicKeys }, { userId: 'b', keys: c.publicKeys })).not.toBe(ab);
    expect(formatSafetyNumber(ab).split(' ')).toHaveLength(12);
    expect(await keyFingerprint(a.publicKeys)).not.toBe(await keyFingerprint(b.publicKeys));
  });
});
