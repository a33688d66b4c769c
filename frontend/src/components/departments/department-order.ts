import { type Department, DepartmentType } from '@/api/generated/model';

/** The order the interface lists departments in (the server sorts them by their type's name). */
export const DEPARTMENT_ORDER: readonly DepartmentType[] = Object.values(DepartmentType);

export function sortDepartments<D extends Pick<Department, 'type'>>(departments: readonly D[]): D[] {
  return [...departments].sort((a, b) => DEPARTMENT_ORDER.indexOf(a.type) - DEPARTMENT_ORDER.indexOf(b.type));
}
