import type { ListAuditEventsParams } from '@/api/generated/model';

/** The screen's filters, kept in the URL (`lib/list-params`): every value is a string, '' when unset. */
export const FILTER_KEYS = ['action', 'actor', 'target', 'from', 'to', 'q', 'enterpriseId'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type FilterValues = Record<FilterKey, string>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** An area (`report`) or an action (`report.approved`), as the server takes them (at most 100 characters). */
const ACTION = /^[a-z_]{1,40}(\.[a-z_]{1,59})?$/;
/** The server's limit on `q`. */
const MAX_QUERY_LENGTH = 200;

export const isId = (value: string): boolean => UUID.test(value.trim());

const day = (value: string): string | undefined => (DAY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ? value : undefined);
const uuid = (value: string): string | undefined => (isId(value) ? value.trim().toLowerCase() : undefined);

/** The start of a calendar day in the browser's time zone, as an instant. */
function startOfDay(value: string, offsetDays = 0): string {
  const [year, month, date] = value.split('-').map(Number);
  return new Date(year, month - 1, date + offsetDays).toISOString();
}

/** The date range of the filters; an end before the start is dropped (and flagged to the user). */
export function dateRange(values: Pick<FilterValues, 'from' | 'to'>): { from?: string; to?: string; inverted: boolean } {
  const from = day(values.from);
  const to = day(values.to);
  const inverted = Boolean(from && to && to < from);
  return { from, to: inverted ? undefined : to, inverted };
}

/**
 * GET /audit-events (and its export) for these filters. The days are the reader's: from the start
 * of the first to the end of the last (the server's `to` is exclusive: the next day's start). A
 * hand-edited URL never reaches the API as a 400: odd values are left out.
 */
export function auditQuery(values: FilterValues, { isAdmin }: { isAdmin: boolean }): Omit<ListAuditEventsParams, 'before' | 'pageSize'> {
  const { from, to } = dateRange(values);
  const action = values.action.trim();
  return {
    // Only the platform admin chooses an enterprise; a CEO's scope is their own, server-side.
    enterpriseId: isAdmin ? uuid(values.enterpriseId) : undefined,
    action: ACTION.test(action) ? action : undefined,
    actor: uuid(values.actor),
    target: uuid(values.target),
    from: from ? startOfDay(from) : undefined,
    to: to ? startOfDay(to, 1) : undefined,
    q: values.q.trim().slice(0, MAX_QUERY_LENGTH) || undefined,
  };
}
