import type { Icon } from '@tabler/icons-react';
import {
  IconBuilding,
  IconBuildingSkyscraper,
  IconChartDots,
  IconFileText,
  IconLayoutDashboard,
  IconListSearch,
  IconMessages,
  IconPlugConnected,
  IconShieldLock,
  IconTable,
  IconUsers,
  IconUsersGroup,
} from '@tabler/icons-react';
import type { ParseKeys } from 'i18next';
import type { User } from '@/api/generated/model';
import { type RouteKey, href, isAllowed, routes } from './paths';

type NavEntry = {
  route: RouteKey;
  label: ParseKeys;
  icon: Icon;
  /** Builds the link for this user; null hides the entry (e.g. no department yet). */
  link?: (user: User) => string | null;
};

const inOwnDepartment = (route: 'department' | 'departmentReports' | 'departmentSpreadsheet') => (user: User) =>
  user.departmentId ? href(route, { id: user.departmentId }) : null;

/** The sidebar, in order (SPEC §6). Entries show only for allowed roles and routes that have a screen. */
const NAV: readonly NavEntry[] = [
  { route: 'dashboard', label: 'nav.dashboard', icon: IconLayoutDashboard },
  { route: 'admin', label: 'nav.adminDashboard', icon: IconShieldLock },
  { route: 'adminEnterprises', label: 'nav.enterprises', icon: IconBuilding },
  { route: 'ceo', label: 'nav.myEnterprise', icon: IconBuildingSkyscraper },
  { route: 'ceoReports', label: 'nav.reports', icon: IconFileText },
  { route: 'department', label: 'nav.department', icon: IconUsersGroup, link: inOwnDepartment('department') },
  { route: 'departmentReports', label: 'nav.reports', icon: IconFileText, link: inOwnDepartment('departmentReports') },
  { route: 'departmentSpreadsheet', label: 'nav.spreadsheet', icon: IconTable, link: inOwnDepartment('departmentSpreadsheet') },
  { route: 'adminUsers', label: 'nav.users', icon: IconUsers },
  { route: 'messages', label: 'nav.messages', icon: IconMessages },
  { route: 'adminMonitoring', label: 'nav.monitoring', icon: IconChartDots },
  { route: 'ceoMonitoring', label: 'nav.monitoring', icon: IconChartDots },
  { route: 'ceoIntegrations', label: 'nav.integrations', icon: IconPlugConnected },
  { route: 'adminIntegrations', label: 'nav.integrations', icon: IconPlugConnected },
  { route: 'audit', label: 'nav.audit', icon: IconListSearch },
  { route: 'adminAudit', label: 'nav.audit', icon: IconListSearch },
];

export type NavItem = { key: RouteKey; label: ParseKeys; icon: Icon; to: string };

export function navItemsFor(user: User): NavItem[] {
  return NAV.flatMap(({ route, label, icon, link }) => {
    const def = routes[route];
    if (!def.ready || !isAllowed(user.role, def.access)) return [];
    const to = link ? link(user) : def.path;
    return to ? [{ key: route, label, icon, to }] : [];
  });
}

/**
 * The one entry to highlight on `pathname`: of the entries whose link is the path or one of its
 * parents, the most specific (/admin/enterprises/1 is under "Enterprises", not also under
 * "Administration"). Null when none is.
 */
export function activeNavKey(items: readonly NavItem[], pathname: string): RouteKey | null {
  let active: NavItem | null = null;
  for (const item of items) {
    const matches = pathname === item.to || pathname.startsWith(`${item.to}/`);
    if (matches && (!active || item.to.length > active.to.length)) active = item;
  }
  return active?.key ?? null;
}
