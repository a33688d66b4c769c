import type { Query, QueryClient } from '@tanstack/react-query';

// orval's query keys start with the request path: ['/api/v1/enterprises/{id}/users', params?].
const API = '/api/v1';

const pathOf = (query: Query): string => (typeof query.queryKey[0] === 'string' ? query.queryKey[0] : '');

const underAny =
  (...prefixes: string[]) =>
  (query: Query): boolean => {
    const path = pathOf(query);
    return prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`));
  };

/**
 * What each kind of change makes stale. Enterprise details embed departments and counts,
 * department changes move people (and may make someone a head), and user changes show in
 * department member lists, so the groups overlap on purpose.
 */
export const invalidate = {
  /** A department changed (description, head, members): that enterprise's data and the user lists. */
  departments: (client: QueryClient, enterpriseId: string) =>
    client.invalidateQueries({ predicate: underAny(`${API}/enterprises/${enterpriseId}`, `${API}/users`) }),

  /**
   * An account or an enterprise was created, changed or deleted: the user lists and every
   * enterprise read (members, counts, CEO).
   */
  users: (client: QueryClient) => client.invalidateQueries({ predicate: underAny(`${API}/users`, `${API}/enterprises`) }),

  /** A deleted enterprise: forget its detail (refetching it would only 404) and refresh the rest. */
  deletedEnterprise: (client: QueryClient, enterpriseId: string) => {
    client.removeQueries({ predicate: underAny(`${API}/enterprises/${enterpriseId}`) });
    return client.invalidateQueries({ predicate: underAny(`${API}/enterprises`, `${API}/users`) });
  },

  /** Sessions were ended: the monitoring lists and the user's own sessions. */
  sessions: (client: QueryClient) => client.invalidateQueries({ predicate: underAny(`${API}/monitoring`, `${API}/auth/sessions`) }),
};

const REPORT_READS = (query: Query): boolean => {
  const path = pathOf(query);
  return path.includes('/reports') || path.startsWith(`${API}/dashboard`) || path.startsWith(`${API}/admin`) || path.startsWith(`${API}/enterprises/`);
};

/** A report was created, changed or reviewed: every report list, detail and dashboard. */
export const invalidateReports = (client: QueryClient) => client.invalidateQueries({ predicate: REPORT_READS });

/**
 * A deleted report: its own reads are cancelled and forgotten (fetching it again would only
 * 404), the lists and dashboards that counted it refreshed.
 */
export const deletedReport = async (client: QueryClient, reportId: string) => {
  const own = underAny(`${API}/reports/${reportId}`);
  await client.cancelQueries({ predicate: own });
  client.removeQueries({ predicate: own });
  return client.invalidateQueries({ predicate: (query) => REPORT_READS(query) && !own(query) });
};
