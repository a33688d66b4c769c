import { vi } from 'vitest';

/** Test support for the known-answer tests: crypto.getRandomValues hands out these bytes, by the length asked for. */
export function supplyRandom(byLength: Record<number, Uint8Array>): void {
  const real = crypto.getRandomValues.bind(crypto);
  vi.spyOn(crypto, 'getRandomValues').mockImplementation(((array: Uint8Array<ArrayBuffer>) => {
    const fixed = byLength[array.length];
    if (!fixed) return real(array);
    array.set(fixed);
    return array;
  }) as typeof crypto.getRandomValues);
}
