/** The areas a token's scopes cover, in the order the form lists them (the API's `CreateApiToken.scopes`). */
export const SCOPE_AREAS = ['enterprises', 'users', 'reports', 'dashboards', 'monitoring', 'spreadsheets', 'audit', 'webhooks', 'scim'] as const;
export type ScopeArea = (typeof SCOPE_AREAS)[number];

export const SCOPE_LEVELS = ['read', 'write'] as const;
export type ScopeLevel = (typeof SCOPE_LEVELS)[number];

/** What the form holds: per area, read or write (which includes read); absent for neither. */
export type ScopeChoice = Partial<Record<ScopeArea, ScopeLevel>>;

const isArea = (value: string): value is ScopeArea => (SCOPE_AREAS as readonly string[]).includes(value);
const isLevel = (value: string): value is ScopeLevel => (SCOPE_LEVELS as readonly string[]).includes(value);

/** `reports:read` as its area and level; null for a scope this client does not know. */
export function parseScope(scope: string): { area: ScopeArea; level: ScopeLevel } | null {
  const [area = '', level = '', ...rest] = scope.split(':');
  return rest.length === 0 && isArea(area) && isLevel(level) ? { area, level } : null;
}

/**
 * A box of the grid checked or unchecked. Write includes read: checking write checks read too,
 * and read stays checked while write is (unchecking write leaves read).
 */
export function toggleScope(choice: ScopeChoice, area: ScopeArea, level: ScopeLevel, checked: boolean): ScopeChoice {
  const next = { ...choice };
  if (level === 'write') next[area] = checked ? 'write' : 'read';
  else if (checked) next[area] ??= 'read';
  else if (next[area] === 'read') delete next[area];
  return next;
}

/** The scopes to send, in the grid's order: the strongest level of each area (write implies read). */
export function scopesOf(choice: ScopeChoice): string[] {
  return SCOPE_AREAS.flatMap((area) => (choice[area] ? [`${area}:${choice[area]}`] : []));
}
