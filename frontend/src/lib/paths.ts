import { Role } from '@/api/generated/model';

/** Who may open a route: only signed-out visitors, anyone, or signed-in users with one of the roles. */
export type RouteAccess = 'guest' | 'public' | readonly Role[];

type RouteDef = {
  readonly path: string;
  readonly access: RouteAccess;
  /** Has a screen in this build; the router must register one for every such route. */
  readonly ready: boolean;
};

const ANY_ROLE = Object.values(Role);
const { PlatformAdmin, EnterpriseCeo, DepartmentHead, DepartmentUser } = Role;
const DEPARTMENT = [DepartmentHead, DepartmentUser] as const;
/** Staff build their department's spreadsheets; the CEO opens any of their enterprise's, read-only. */
const SPREADSHEETS = [DepartmentHead, DepartmentUser, EnterpriseCeo] as const;

/** The whole route table of SPEC §2, with the roles allowed on each route. */
export const routes = {
  login: { path: '/login', access: 'guest', ready: true },
  forgotPassword: { path: '/forgot-password', access: 'guest', ready: true },
  resetPassword: { path: '/reset-password', access: 'guest', ready: true },
  // Public: a signed-in visitor is told to sign out first rather than sent away from the link.
  acceptInvitation: { path: '/accept-invitation', access: 'public', ready: true },
  // Where the identity provider sends the browser back after single sign-on; public, like the invitation link.
  ssoCallback: { path: '/sign-in/sso', access: 'public', ready: true },
  home: { path: '/', access: 'public', ready: true },
  dashboard: { path: '/dashboard', access: ANY_ROLE, ready: true },
  admin: { path: '/admin', access: [PlatformAdmin], ready: true },
  adminEnterprises: { path: '/admin/enterprises', access: [PlatformAdmin], ready: true },
  adminEnterpriseCreate: { path: '/admin/enterprises/create', access: [PlatformAdmin], ready: true },
  adminEnterprise: { path: '/admin/enterprises/:id', access: [PlatformAdmin], ready: true },
  adminEnterpriseIntegrations: { path: '/admin/enterprises/:id/integrations', access: [PlatformAdmin], ready: true },
  adminUserCreate: { path: '/admin/users/create', access: [PlatformAdmin, EnterpriseCeo], ready: true },
  adminUsers: { path: '/admin/users', access: [PlatformAdmin, EnterpriseCeo], ready: true },
  adminMonitoring: { path: '/admin/monitoring', access: [PlatformAdmin], ready: true },
  adminIntegrations: { path: '/admin/integrations', access: [PlatformAdmin], ready: true },
  adminAudit: { path: '/admin/audit', access: [PlatformAdmin], ready: true },
  ceo: { path: '/ceo', access: [EnterpriseCeo], ready: true },
  ceoReports: { path: '/ceo/reports', access: [EnterpriseCeo], ready: true },
  ceoReport: { path: '/ceo/reports/:id', access: [EnterpriseCeo, PlatformAdmin], ready: true },
  ceoMonitoring: { path: '/ceo/monitoring', access: [EnterpriseCeo], ready: true },
  ceoIntegrations: { path: '/ceo/integrations', access: [EnterpriseCeo], ready: true },
  audit: { path: '/audit', access: [EnterpriseCeo], ready: true },
  department: { path: '/department/:id', access: DEPARTMENT, ready: true },
  departmentReports: { path: '/department/:id/reports', access: DEPARTMENT, ready: true },
  departmentReportCreate: { path: '/department/:id/reports/create', access: DEPARTMENT, ready: true },
  departmentReport: { path: '/department/:id/reports/:reportId', access: DEPARTMENT, ready: true },
  departmentReportEdit: { path: '/department/:id/reports/:reportId/edit', access: DEPARTMENT, ready: true },
  departmentSpreadsheet: { path: '/department/:id/spreadsheet', access: SPREADSHEETS, ready: true },
  departmentSpreadsheetEditor: { path: '/department/:id/spreadsheet/:spreadsheetId', access: SPREADSHEETS, ready: true },
  messages: { path: '/messages', access: ANY_ROLE, ready: true },
  apiTokens: { path: '/settings/api-tokens', access: ANY_ROLE, ready: true },
  profile: { path: '/settings/profile', access: ANY_ROLE, ready: true },
} as const satisfies Record<string, RouteDef>;

export type RouteKey = keyof typeof routes;
export type ReadyRouteKey = { [K in RouteKey]: (typeof routes)[K]['ready'] extends true ? K : never }[RouteKey];

type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<Rest>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

export type RouteParams<K extends RouteKey> = ParamNames<(typeof routes)[K]['path']>;
type ParamsArg<K extends RouteKey> = [RouteParams<K>] extends [never] ? [] : [params: Record<RouteParams<K>, string>];

/** Builds the link to a route: `href('adminEnterprise', { id })`. Every link in the app goes through here. */
export function href<K extends RouteKey>(key: K, ...[params]: ParamsArg<K>): string {
  const values = (params ?? {}) as Record<string, string>;
  return routes[key].path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(values[name]));
}

/**
 * The audit log's entries about one thing (a user, a report, an enterprise), for whoever may read
 * the log: the platform admin's /admin/audit, a CEO's /audit; null for the other roles.
 */
export function auditLogHref(role: Role, target: string): string | null {
  const query = `?target=${encodeURIComponent(target)}`;
  if (role === PlatformAdmin) return `${href('adminAudit')}${query}`;
  if (role === EnterpriseCeo) return `${href('audit')}${query}`;
  return null;
}

export function isAllowed(role: Role, access: RouteAccess): boolean {
  return access === 'public' || (access !== 'guest' && access.includes(role));
}

/** The landing page of a role (SPEC §2 guard rules), before checking that it has a screen. */
function landingRouteFor(role: Role): 'admin' | 'ceo' | 'dashboard' {
  if (role === PlatformAdmin) return 'admin';
  if (role === EnterpriseCeo) return 'ceo';
  return 'dashboard';
}

/**
 * Where a signed-in user goes when their role may not open a route (SPEC §2 guard rules). A
 * landing page without a screen yet would be a dead end (or a redirect loop): /dashboard instead.
 */
export function fallbackPathFor(role: Role): string {
  const landing = landingRouteFor(role);
  return routes[landing].ready ? routes[landing].path : href('dashboard');
}
