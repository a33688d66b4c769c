import { type Report, type ReportDetail, type ReportEvent, ReportStatus, type User } from '@/api/generated/model';

export const REPORT_STATUSES = Object.values(ReportStatus);
/** What the CEO sees: never drafts. */
export const REVIEWABLE_STATUSES = REPORT_STATUSES.filter((status) => status !== 'draft');

export const STATUS_COLORS: Record<ReportStatus, string> = {
  draft: 'gray',
  submitted: 'blue',
  reviewed: 'violet',
  approved: 'green',
  rejected: 'red',
};

type ReportLike = Pick<Report, 'status' | 'departmentId' | 'createdBy'>;

/**
 * Edit, delete and submit (the server decides; this only hides buttons that would be refused):
 * the author or their department's head, while the report is a draft or was rejected.
 */
export function canModify(report: ReportLike, user: User): boolean {
  if (report.status !== 'draft' && report.status !== 'rejected') return false;
  if (report.createdBy.id === user.id) return true;
  return user.role === 'DepartmentHead' && user.departmentId === report.departmentId;
}

/** The CEO's choices for a report in this status (approved is final). */
export function reviewChoices(status: ReportStatus): ('reviewed' | 'approved' | 'rejected')[] {
  if (status === 'submitted') return ['reviewed', 'approved', 'rejected'];
  if (status === 'reviewed') return ['approved', 'rejected'];
  return [];
}

type Reviewed = Pick<ReportDetail, 'status' | 'reviewNotes' | 'reviewedBy' | 'reviewedAt'>;

/**
 * The review a report carries now: its notes, reviewer and time, while its status is the outcome
 * of that review. Editing or resubmitting a report clears its review (the history keeps it), so a
 * draft or a submitted report has none, whatever an older answer still held.
 */
export function currentReview(report: Reviewed): { notes: string | null; by: ReportDetail['reviewedBy']; at: string | null } | null {
  if (report.status !== 'reviewed' && report.status !== 'approved' && report.status !== 'rejected') return null;
  if (!report.reviewNotes && !report.reviewedBy) return null;
  return { notes: report.reviewNotes ?? null, by: report.reviewedBy ?? null, at: report.reviewedAt ?? null };
}

/** The latest rejection in a report's history (what the author has to answer), if any. */
export function lastRejection(report: Pick<ReportDetail, 'history'>): ReportEvent | null {
  return report.history.reduce<ReportEvent | null>(
    (latest, event) => (event.toStatus === 'rejected' && (!latest || event.createdAt >= latest.createdAt) ? event : latest),
    null,
  );
}
