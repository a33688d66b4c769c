import { type Report, ReportStatus, type User } from '@/api/generated/model';

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
