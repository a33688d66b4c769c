import { describe, expect, it } from 'vitest';
import type { ReportStatus } from '@/api/generated/model';
import { makeUser, summaryOf } from '@/testing/fixtures';
import { canModify, currentReview, lastRejection, reviewChoices } from './report-rules';

const author = makeUser('DepartmentUser', { id: 'author' });
const colleague = makeUser('DepartmentUser', { id: 'colleague' });
const head = makeUser('DepartmentHead', { id: 'head' });
const otherHead = makeUser('DepartmentHead', { id: 'other-head', departmentId: 'elsewhere' });
const ceo = makeUser('EnterpriseCeo', { id: 'ceo' });
const report = (status: ReportStatus) => ({
  status,
  departmentId: author.departmentId!,
  createdBy: summaryOf(author),
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

describe('currentReview', () => {
  const reviewer = { id: 'ceo', fullName: 'Cora Ceo', email: 'cora@acme.test', role: 'EnterpriseCeo' as const };
  const reviewed = { reviewNotes: 'Check North', reviewedBy: reviewer, reviewedAt: '2026-04-02T10:00:00Z' };

  it.each(['reviewed', 'approved', 'rejected'] as const)('is the review a %s report stands on', (status) => {
    expect(currentReview({ status, ...reviewed })).toEqual({ notes: 'Check North', by: reviewer, at: '2026-04-02T10:00:00Z' });
  });

  it.each(['draft', 'submitted'] as const)('is none for a %s report, even if an older answer still held one', (status) => {
    expect(currentReview({ status, ...reviewed })).toBeNull();
  });
});

describe('lastRejection', () => {
  const at = (createdAt: string, toStatus: ReportStatus, notes: string | null = null) => ({ id: createdAt, toStatus, notes, createdAt });
  it('is the latest rejection in the history, whatever came after it', () => {
    const history = [at('2026-04-01', 'submitted'), at('2026-04-02', 'rejected', 'first'), at('2026-04-04', 'rejected', 'second'), at('2026-04-05', 'draft')];
    expect(lastRejection({ history })?.notes).toBe('second');
    expect(lastRejection({ history: history.slice(0, 1) })).toBeNull();
  });
});
