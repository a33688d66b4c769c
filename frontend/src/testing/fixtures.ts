import type { Department, DepartmentType, Enterprise, EnterpriseDetail, Role, User } from '@/api/generated/model';

export function makeUser(role: Role = 'PlatformAdmin', overrides: Partial<User> = {}): User {
  return {
    id: '0190f3c2-0000-7000-8000-000000000001',
    role,
    fullName: 'Ada Lovelace',
    email: 'ada@example.com',
    status: 'active',
    lastLogin: undefined,
    departmentId: role === 'DepartmentHead' || role === 'DepartmentUser' ? '0190f3c2-0000-7000-8000-0000000000d1' : undefined,
    enterpriseId: role === 'PlatformAdmin' ? undefined : '0190f3c2-0000-7000-8000-0000000000e1',
    createdAt: '2026-01-15T09:30:00Z',
    ...overrides,
  };
}

export function jsonResponse(status: number, body?: unknown, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  });
}

const ENTERPRISE_ID = '0190f3c2-0000-7000-8000-0000000000e1';

export function makeEnterprise(overrides: Partial<Enterprise> = {}): Enterprise {
  return {
    id: ENTERPRISE_ID,
    name: 'Acme Corp',
    description: 'Makes everything',
    isActive: true,
    createdAt: '2026-01-15T09:30:00Z',
    updatedAt: '2026-01-16T10:00:00Z',
    ceo: { id: '0190f3c2-0000-7000-8000-0000000000c1', fullName: 'Cora Ceo', email: 'cora@acme.test', role: 'EnterpriseCeo' },
    ...overrides,
  };
}

/** The five departments, in the server's order (by type name). */
export function makeDepartments(enterpriseId = ENTERPRISE_ID, overrides: Partial<Record<DepartmentType, Partial<Department>>> = {}): Department[] {
  const types: DepartmentType[] = ['finance', 'human_resources', 'information_technology', 'operations', 'sales_marketing'];
  return types.map((type, index) => ({
    id: `0190f3c2-0000-7000-8000-0000000000d${index}`,
    enterpriseId,
    type,
    description: '',
    head: null,
    members: [],
    ...overrides[type],
  }));
}

export function makeEnterpriseDetail(overrides: Partial<EnterpriseDetail> = {}): EnterpriseDetail {
  return { ...makeEnterprise(), departments: makeDepartments(), userCount: 1, reportCount: 0, ...overrides };
}

export function page<T>(items: T[], total = items.length, pageSize = 20) {
  return { items, total, page: 1, pageSize };
}
