import { describe, expect, it } from 'vitest';
import { base64ToBytes, bytesToBase64 } from './base64';

describe('the content as base64', () => {
  it('round-trips every byte value, past the size of one slice', () => {
    const bytes = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7919) % 256);
    const text = bytesToBase64(bytes);
    expect(text).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(bytesToBase64(new Uint8Array([0, 255, 16]))).toBe('AP8Q');
    expect(base64ToBytes(text)).toEqual(bytes);
  });
});
