/**
 * The events a webhook may hear (the API's `CreateWebhook.events`), grouped by area in the order
 * the form lists them.
 */
export const EVENT_GROUPS = {
  report: ['report.created', 'report.submitted', 'report.reviewed', 'report.approved', 'report.rejected', 'report.deleted'],
  user: ['user.created', 'user.updated', 'user.deactivated', 'user.deleted'],
  spreadsheet: ['spreadsheet.created'],
  session: ['session.started', 'session.ended'],
} as const;

export type EventArea = keyof typeof EVENT_GROUPS;
export type WebhookEvent = (typeof EVENT_GROUPS)[EventArea][number];

export const EVENT_AREAS = Object.keys(EVENT_GROUPS) as EventArea[];
export const ALL_EVENTS: readonly WebhookEvent[] = EVENT_AREAS.flatMap((area) => EVENT_GROUPS[area]);

export const isWebhookEvent = (value: string): value is WebhookEvent => (ALL_EVENTS as readonly string[]).includes(value);

/** `report.approved` → its area and verb, for its label (`webhooks.events.report.approved`). */
export function eventParts(event: WebhookEvent): { area: EventArea; verb: string } {
  const [area, verb] = event.split('.') as [EventArea, string];
  return { area, verb };
}

/** Whether an area's events are all chosen, some, or none: its "select all" box shows which. */
export function areaState(chosen: readonly string[], area: EventArea): 'all' | 'some' | 'none' {
  const count = EVENT_GROUPS[area].filter((event) => chosen.includes(event)).length;
  if (count === 0) return 'none';
  return count === EVENT_GROUPS[area].length ? 'all' : 'some';
}

/** The choice with one event, or a whole area, checked or unchecked; in the form's order, without repeats. */
export function toggleEvents(chosen: readonly string[], events: readonly string[], checked: boolean): string[] {
  const next = new Set(chosen);
  for (const event of events) {
    if (checked) next.add(event);
    else next.delete(event);
  }
  // Known events in the form's order; any the server knows and this client does not, kept after them.
  return [...ALL_EVENTS.filter((event) => next.has(event)), ...[...next].filter((event) => !isWebhookEvent(event))];
}
