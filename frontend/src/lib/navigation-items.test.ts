import { describe, expect, it } from 'vitest';
import type { Role } from '@/api/generated/model';
import { makeUser } from '@/testing/fixtures';
import { activeNavKey, navItemsFor } from './navigation-items';
import { fallbackPathFor } from './paths';

const DEPT = makeUser('DepartmentUser').departmentId!;

describe('the sidebar per role (only screens that exist)', () => {
  it.each<[Role, string[]]>([
    ['PlatformAdmin', ['/dashboard', '/admin', '/admin/enterprises', '/admin/users', '/messages', '/admin/monitoring', '/admin/integrations', '/admin/audit']],
    ['EnterpriseCeo', ['/dashboard', '/ceo', '/ceo/reports', '/admin/users', '/messages', '/ceo/monitoring', '/ceo/integrations', '/audit']],
    ['DepartmentHead', ['/dashboard', `/department/${DEPT}`, `/department/${DEPT}/reports`, `/department/${DEPT}/spreadsheet`, '/messages']],
    ['DepartmentUser', ['/dashboard', `/department/${DEPT}`, `/department/${DEPT}/reports`, `/department/${DEPT}/spreadsheet`, '/messages']],
  ])('%s sees %j', (role, links) => {
    expect(navItemsFor(makeUser(role)).map((item) => item.to)).toEqual(links);
  });

  it('labels the CEO home "My enterprise"', () => {
    expect(navItemsFor(makeUser('EnterpriseCeo')).map((item) => item.label)).toEqual([
      'nav.dashboard',
      'nav.myEnterprise',
      'nav.reports',
      'nav.users',
      'nav.messages',
      'nav.monitoring',
      'nav.integrations',
      'nav.audit',
    ]);
  });

  it('hides the department entries from staff without a department', () => {
    expect(navItemsFor(makeUser('DepartmentUser', { departmentId: null })).map((item) => item.to)).toEqual(['/dashboard', '/messages']);
  });
});

describe('fallbackPathFor', () => {
  it.each<[Role, string]>([
    ['PlatformAdmin', '/admin'],
    ['EnterpriseCeo', '/ceo'],
    ['DepartmentHead', '/dashboard'],
    ['DepartmentUser', '/dashboard'],
  ])('sends a %s to %s', (role, path) => {
    expect(fallbackPathFor(role)).toBe(path);
  });
});

describe('the highlighted sidebar entry', () => {
  const admin = navItemsFor(makeUser('PlatformAdmin'));
  const ceo = navItemsFor(makeUser('EnterpriseCeo'));
  const staff = navItemsFor(makeUser('DepartmentHead'));

  it.each<[string, typeof admin, string, string | null]>([
    ['the admin', admin, '/admin', 'admin'],
    ['the admin', admin, '/admin/enterprises', 'adminEnterprises'],
    ['the admin', admin, '/admin/enterprises/e1', 'adminEnterprises'],
    ['the admin', admin, '/admin/enterprises/e1/integrations', 'adminEnterprises'],
    ['the admin', admin, '/admin/users', 'adminUsers'],
    ['the admin', admin, '/admin/users/create', 'adminUsers'],
    ['the admin', admin, '/admin/monitoring', 'adminMonitoring'],
    ['the admin', admin, '/admin/integrations', 'adminIntegrations'],
    ['the admin', admin, '/admin/audit', 'adminAudit'],
    ['the admin', admin, '/ceo/reports/r1', null],
    ['the CEO', ceo, '/ceo', 'ceo'],
    ['the CEO', ceo, '/ceo/reports', 'ceoReports'],
    ['the CEO', ceo, '/ceo/reports/r1', 'ceoReports'],
    ['the CEO', ceo, '/ceo/monitoring', 'ceoMonitoring'],
    ['the CEO', ceo, '/ceo/integrations', 'ceoIntegrations'],
    ['the CEO', ceo, '/audit', 'audit'],
    ['staff', staff, `/department/${DEPT}`, 'department'],
    ['staff', staff, `/department/${DEPT}/reports`, 'departmentReports'],
    ['staff', staff, `/department/${DEPT}/reports/r1/edit`, 'departmentReports'],
    ['staff', staff, '/dashboardish', null],
  ])('for %s on %s is the most specific one only: %s', (_, items, pathname, key) => {
    expect(activeNavKey(items, pathname)).toBe(key);
  });
});
