import { useSearchParams } from 'react-router-dom';

/** Rows per page in the lists (SPEC: 20). */
export const PAGE_SIZE = 20;

/** `?page=` as a whole number from 1; anything else is page 1. */
export function parsePage(value: string | null): number {
  const page = Number(value);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** `value` when it is one of `allowed`, else undefined (a hand-edited URL must not reach the API). */
export function oneOf<T extends string>(value: string | null | undefined, allowed: readonly T[]): T | undefined {
  return allowed.includes(value as T) ? (value as T) : undefined;
}

/**
 * A list's filters and page, kept in the URL so that reloading, sharing a link or coming back
 * from a detail shows the same rows. Changing a filter goes back to page 1.
 */
export function useListParams<K extends string>(keys: readonly K[]) {
  const [params, setParams] = useSearchParams();
  const values = Object.fromEntries(keys.map((key) => [key, params.get(key) ?? ''])) as Record<K, string>;
  const page = parsePage(params.get('page'));

  const update = (patch: Partial<Record<K, string | null>>) =>
    setParams(
      (previous) => {
        const next = new URLSearchParams(previous);
        for (const [key, value] of Object.entries(patch) as [string, string | null | undefined][]) {
          if (value) next.set(key, value);
          else next.delete(key);
        }
        next.delete('page');
        return next;
      },
      { replace: true },
    );

  const setPage = (value: number) =>
    setParams(
      (previous) => {
        const next = new URLSearchParams(previous);
        if (value > 1) next.set('page', String(value));
        else next.delete('page');
        return next;
      },
      { replace: false },
    );

  const reset = () => setParams(new URLSearchParams(), { replace: true });
  const filtered = keys.some((key) => values[key] !== '');

  return { values, page, update, setPage, reset, filtered };
}
