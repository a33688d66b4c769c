import { Role, type User } from '@/api/generated/model';

const { PlatformAdmin, EnterpriseCeo, DepartmentHead, DepartmentUser } = Role;

/** Department staff: the people who belong to a department and may head one. */
export const STAFF_ROLES: readonly Role[] = [DepartmentHead, DepartmentUser];
/** Everyone who belongs to an enterprise. */
export const TENANT_ROLES: readonly Role[] = [EnterpriseCeo, DepartmentHead, DepartmentUser];
/** Every role, in the order the interface lists them. */
export const ALL_ROLES: readonly Role[] = [PlatformAdmin, EnterpriseCeo, DepartmentHead, DepartmentUser];

export const isStaffRole = (role: Role): boolean => STAFF_ROLES.includes(role);
export const isTenantRole = (role: Role): boolean => TENANT_ROLES.includes(role);

/** Who may manage accounts at all (the user screens). */
export const managesUsers = (role: Role): boolean => role === PlatformAdmin || role === EnterpriseCeo;

/** The roles a caller may give a new account: the admin any, a CEO department staff only. */
export function creatableRoles(caller: Role): readonly Role[] {
  if (caller === PlatformAdmin) return ALL_ROLES;
  if (caller === EnterpriseCeo) return STAFF_ROLES;
  return [];
}

/**
 * The roles a caller may switch an existing account to. The admin keeps administrators
 * administrators and tenant people tenant people (an administrator has no enterprise); a CEO
 * moves staff between the two staff roles.
 */
export function editableRoles(caller: Role, current: Role): readonly Role[] {
  if (caller === PlatformAdmin) return isTenantRole(current) ? TENANT_ROLES : [PlatformAdmin];
  if (caller === EnterpriseCeo) return isStaffRole(current) ? STAFF_ROLES : [];
  return [];
}

/**
 * What the caller may do to an account in the user list. Nobody deactivates, deletes or changes
 * the role of their own account (the server refuses it: it would lock them out).
 */
export function userActionsFor(caller: User, target: User) {
  const self = caller.id === target.id;
  const manageable =
    !target.erased &&
    (caller.role === PlatformAdmin || (caller.role === EnterpriseCeo && target.enterpriseId === caller.enterpriseId && isStaffRole(target.role)));
  return {
    edit: manageable,
    changeRole: manageable && !self,
    changeStatus: manageable && !self,
    delete: manageable && !self,
  };
}
