import { describe, expect, it } from 'vitest';
import type { ReportStatus } from '@/api/generated/model';
import { makeUser } from '@/testing/fixtures';
import { canModify, reviewChoices } from './report-rules';

const author = makeUser('DepartmentUser', { id: 'author' });
const colleague = makeUser('DepartmentUser', { id: 'colleague' });
const head = makeUser('DepartmentHead', { id: 'head' });
const otherHead = makeUser('DepartmentHead', { id: 'other-head', departmentId: 'elsewhere' });
const ceo = makeUser('EnterpriseCeo', { id: 'ceo' });
const report = (status: ReportStatus) => ({
  status,
  departmentId: author.departmentId!,
  createdBy: { id: author.id, fullName: author.fullName, email: author.email, role: author.role },
});

describe('canModify', () => {
  it.each(['draft', 'rejected'] as const)('lets the author and their head change a %s report', (status) => {
    expect(canModify(report(status), author)).toBe(true);
    expect(canModify(report(status), head)).toBe(true);
    expect(canModify(report(status), colleague)).toBe(false);
    expect(canModify(report(status), otherHead)).toBe(false);
    expect(canModify(report(status), ceo)).toBe(false);
  });

  it.each(['submitted', 'reviewed', 'approved'] as const)('lets nobody change a %s report', (status) => {
    expect(canModify(report(status), author)).toBe(false);
    expect(canModify(report(status), head)).toBe(false);
  });
});

describe('reviewChoices', () => {
  it('follows the transitions of the API', () => {
    expect(reviewChoices('submitted')).toEqual(['reviewed', 'approved', 'rejected']);
    expect(reviewChoices('reviewed')).toEqual(['approved', 'rejected']);
    expect(reviewChoices('approved')).toEqual([]);
    expect(reviewChoices('rejected')).toEqual([]);
    expect(reviewChoices('draft')).toEqual([]);
  });
});
