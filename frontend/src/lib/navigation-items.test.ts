import { describe, expect, it } from 'vitest';
import type { Role } from '@/api/generated/model';
import { makeUser } from '@/testing/fixtures';
import { navItemsFor } from './navigation-items';
import { fallbackPathFor } from './paths';

const DEPT = makeUser('DepartmentUser').departmentId!;

describe('the sidebar per role (only screens that exist)', () => {
  it.each<[Role, string[]]>([
    ['PlatformAdmin', ['/dashboard', '/admin', '/admin/enterprises', '/admin/users', '/messages', '/admin/monitoring']],
    ['EnterpriseCeo', ['/dashboard', '/ceo', '/ceo/reports', '/admin/users', '/messages', '/ceo/monitoring']],
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
