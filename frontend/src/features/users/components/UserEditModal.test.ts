import { describe, expect, it } from 'vitest';
import { makeUser } from '@/testing/fixtures';
import { userChanges } from './UserEditModal';

const hal = makeUser('DepartmentUser', { fullName: 'Hal', email: 'hal@acme.test', departmentId: 'd1' });
const same = { fullName: 'Hal', email: 'hal@acme.test', role: hal.role, departmentId: 'd1', password: '' };

describe('userChanges', () => {
  it('sends nothing when nothing changed (spaces aside)', () => {
    expect(userChanges(hal, { ...same, fullName: ' Hal ' })).toEqual({});
  });

  it('sends only what changed, trimmed', () => {
    expect(userChanges(hal, { ...same, email: ' hal@new.test ', password: 'new-password' })).toEqual({ email: 'hal@new.test', password: 'new-password' });
  });

  it('takes someone out of their department with null', () => {
    expect(userChanges(hal, { ...same, departmentId: 'none' })).toEqual({ departmentId: null });
    expect(userChanges({ ...hal, departmentId: null }, { ...same, departmentId: 'none' })).toEqual({});
  });

  it('clears the department of someone who stops being department staff', () => {
    expect(userChanges(hal, { ...same, role: 'EnterpriseCeo' })).toEqual({ role: 'EnterpriseCeo', departmentId: null });
  });
});
