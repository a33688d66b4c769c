import { useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router-dom';
import type { UpdateReport } from '@/api/generated/model';
import { useCreateDepartmentReport, useDeleteReport, useReviewReport, useUpdateReport } from '@/api/generated/reports/reports';
import { deletedReport, invalidateReports } from '@/lib/query-invalidation';
import { useCurrentUser } from '@/lib/session';

/** The department of the route, and whether it is the signed-in staff member's own. */
export function useDepartmentRoute() {
  const { id = '', reportId = '' } = useParams<'id' | 'reportId'>();
  const user = useCurrentUser();
  return { departmentId: id, reportId, own: Boolean(id) && user.departmentId === id, user };
}

export function useCreateReportMutation() {
  const client = useQueryClient();
  return useCreateDepartmentReport({ mutation: { onSuccess: () => invalidateReports(client) } });
}

/** `data: null` removes a report's table, which the generated type cannot say. */
export type ReportChanges = Omit<UpdateReport, 'data'> & { data?: UpdateReport['data'] | null };

export function useUpdateReportMutation() {
  const client = useQueryClient();
  const mutation = useUpdateReport({ mutation: { onSuccess: () => invalidateReports(client) } });
  return {
    ...mutation,
    mutate: (variables: { id: string; data: ReportChanges }, options?: Parameters<typeof mutation.mutate>[1]) =>
      mutation.mutate({ id: variables.id, data: variables.data as UpdateReport }, options),
  };
}

/** Deleting: the report's own queries go (see `deletedReport`); a screen showing it must stop reading it. */
export function useDeleteReportMutation() {
  const client = useQueryClient();
  return useDeleteReport({ mutation: { onSuccess: (_, { id }) => deletedReport(client, id) } });
}

export function useReviewReportMutation() {
  const client = useQueryClient();
  return useReviewReport({ mutation: { onSuccess: () => invalidateReports(client) } });
}
