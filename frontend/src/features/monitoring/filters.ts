import type { ListMonitoringPlacesParams, ListSessionsParams, ListUserActivityParams } from '@/api/generated/model';

/** The screen's filters, kept in the URL (`lib/list-params`): every value is a string, '' when unset. */
export const FILTER_KEYS = ['show', 'flagged', 'from', 'to', 'q', 'userId', 'enterpriseId'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type FilterValues = Record<FilterKey, string>;

/** `show`: live sessions only (the default, '') or every session (`all`). */
export const SHOW_ALL = 'all';
/** `flagged`: only sessions with an anomaly flag. */
export const FLAGGED_ONLY = '1';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The server's limit on `q`. */
const MAX_QUERY_LENGTH = 200;

const day = (value: string): string | undefined => (DAY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ? value : undefined);
/** An id from the URL, or undefined when it is not one. */
export const uuid = (value: string): string | undefined => (UUID.test(value) ? value : undefined);

/** The date range as the server takes it; an end before the start is dropped (and flagged to the user). */
export function dateRange(values: Pick<FilterValues, 'from' | 'to'>): { from?: string; to?: string; inverted: boolean } {
  const from = day(values.from);
  const to = day(values.to);
  const inverted = Boolean(from && to && to < from);
  return { from, to: inverted ? undefined : to, inverted };
}

type Scope = { isAdmin: boolean; page: number; pageSize: number };

/** The part both lists share. A hand-edited URL never reaches the API as a 400: odd values are left out. */
function common(values: FilterValues, isAdmin: boolean) {
  const { from, to } = dateRange(values);
  return {
    // Only the platform admin chooses an enterprise; a CEO's scope is their own, server-side.
    enterpriseId: isAdmin ? uuid(values.enterpriseId) : undefined,
    from,
    to,
    q: values.q.trim().slice(0, MAX_QUERY_LENGTH) || undefined,
  };
}

/** The session filters both the list and the map take. */
function sessionFilter(values: FilterValues, isAdmin: boolean) {
  return {
    active: values.show === SHOW_ALL ? undefined : true,
    flagged: values.flagged === FLAGGED_ONLY ? true : undefined,
    userId: uuid(values.userId),
    ...common(values, isAdmin),
  };
}

/** GET /monitoring/sessions for these filters. */
export function sessionQuery(values: FilterValues, { isAdmin, page, pageSize }: Scope): ListSessionsParams {
  return { ...sessionFilter(values, isAdmin), page, pageSize };
}

/** The API's zoom levels for `/monitoring/places`. */
export const PLACES_MAX_ZOOM = 18;

/** GET /monitoring/places for these filters, grouped for the map's zoom (a whole level within the API's range). */
export function placesQuery(values: FilterValues, { isAdmin, zoom }: { isAdmin: boolean; zoom: number }): ListMonitoringPlacesParams {
  return { ...sessionFilter(values, isAdmin), zoom: Math.min(PLACES_MAX_ZOOM, Math.max(0, Math.round(zoom))) };
}

/** One place of the map, as `/monitoring/sessions` narrows to it: its city ('' for an unknown one) and country. */
export type PlaceFilter = { city: string; country?: string };

/** GET /monitoring/sessions for these filters at one place of the map. */
export function placeSessionsQuery(values: FilterValues, place: PlaceFilter, scope: Scope): ListSessionsParams {
  return { ...sessionQuery(values, scope), city: place.city, country: place.country };
}

/** GET /monitoring/user-activity for these filters (it takes no state, flag or user filter). */
export function activityQuery(values: FilterValues, { isAdmin, page, pageSize }: Scope): ListUserActivityParams {
  return { ...common(values, isAdmin), page, pageSize };
}
