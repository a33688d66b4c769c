import { describe, expect, it } from 'vitest';
import type { Role } from '@/api/generated/model';
import { makeUser } from '@/testing/fixtures';
import { navItemsFor } from './navigation-items';
import { fallbackPathFor, routes } from './paths';

describe('the sidebar per role (only screens that exist)', () => {
  it.each<[Role, string[]]>([
    ['PlatformAdmin', ['/dashboard', '/admin/enterprises', '/admin/users']],
    ['EnterpriseCeo', ['/dashboard', '/ceo', '/admin/users']],
    ['DepartmentHead', ['/dashboard']],
    ['DepartmentUser', ['/dashboard']],
  ])('%s sees %j', (role, links) => {
    expect(navItemsFor(makeUser(role)).map((item) => item.to)).toEqual(links);
  });

  it('labels the CEO home "My enterprise"', () => {
    expect(navItemsFor(makeUser('EnterpriseCeo')).map((item) => item.label)).toEqual(['nav.dashboard', 'nav.myEnterprise', 'nav.users']);
  });
});

describe('fallbackPathFor', () => {
  it('sends each role to its landing page, or to /dashboard while that page has no screen', () => {
    expect(fallbackPathFor('EnterpriseCeo')).toBe('/ceo');
    expect(fallbackPathFor('PlatformAdmin')).toBe(routes.admin.ready ? '/admin' : '/dashboard');
    expect(fallbackPathFor('DepartmentUser')).toBe('/dashboard');
  });
});
