import { describe, expect, it } from 'vitest';
import type { Role } from '@/api/generated/model';
import { makeUser } from '@/testing/fixtures';
import { creatableRoles, editableRoles, isStaffRole, isTenantRole, managesUsers, userActionsFor } from './authorization';

describe('role options per caller', () => {
  it.each<[Role, Role[]]>([
    ['PlatformAdmin', ['PlatformAdmin', 'EnterpriseCeo', 'DepartmentHead', 'DepartmentUser']],
    ['EnterpriseCeo', ['DepartmentHead', 'DepartmentUser']],
    ['DepartmentHead', []],
    ['DepartmentUser', []],
  ])('a %s may create %j', (caller, roles) => {
    expect(creatableRoles(caller)).toEqual(roles);
  });

  it('the admin keeps administrators administrators and tenant people in tenant roles', () => {
    expect(editableRoles('PlatformAdmin', 'PlatformAdmin')).toEqual(['PlatformAdmin']);
    expect(editableRoles('PlatformAdmin', 'EnterpriseCeo')).toEqual(['EnterpriseCeo', 'DepartmentHead', 'DepartmentUser']);
    expect(editableRoles('PlatformAdmin', 'DepartmentUser')).toEqual(['EnterpriseCeo', 'DepartmentHead', 'DepartmentUser']);
  });

  it('a CEO moves staff between the two staff roles only', () => {
    expect(editableRoles('EnterpriseCeo', 'DepartmentHead')).toEqual(['DepartmentHead', 'DepartmentUser']);
    expect(editableRoles('EnterpriseCeo', 'EnterpriseCeo')).toEqual([]);
    expect(editableRoles('DepartmentHead', 'DepartmentUser')).toEqual([]);
  });

  it('knows staff and tenant roles', () => {
    expect(['PlatformAdmin', 'EnterpriseCeo', 'DepartmentHead', 'DepartmentUser'].map((r) => isStaffRole(r as Role))).toEqual([false, false, true, true]);
    expect(['PlatformAdmin', 'EnterpriseCeo', 'DepartmentHead', 'DepartmentUser'].map((r) => isTenantRole(r as Role))).toEqual([false, true, true, true]);
    expect(managesUsers('PlatformAdmin') && managesUsers('EnterpriseCeo')).toBe(true);
    expect(managesUsers('DepartmentHead') || managesUsers('DepartmentUser')).toBe(false);
  });
});

describe('userActionsFor', () => {
  const admin = makeUser('PlatformAdmin', { id: 'admin' });
  const ceo = makeUser('EnterpriseCeo', { id: 'ceo', enterpriseId: 'e1' });

  it('lets the admin do everything to others, and only edit themselves', () => {
    expect(userActionsFor(admin, makeUser('DepartmentUser', { id: 'u' }))).toEqual({ edit: true, changeRole: true, changeStatus: true, delete: true });
    expect(userActionsFor(admin, admin)).toEqual({ edit: true, changeRole: false, changeStatus: false, delete: false });
  });

  it("lets a CEO manage their own enterprise's staff, nobody else", () => {
    expect(userActionsFor(ceo, makeUser('DepartmentHead', { id: 'h', enterpriseId: 'e1' }))).toEqual({
      edit: true,
      changeRole: true,
      changeStatus: true,
      delete: true,
    });
    expect(userActionsFor(ceo, makeUser('DepartmentHead', { id: 'h', enterpriseId: 'e2' })).edit).toBe(false);
    expect(userActionsFor(ceo, ceo).edit).toBe(false);
  });
});
