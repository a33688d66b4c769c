import type { Role, User } from '@/api/generated/model';

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
