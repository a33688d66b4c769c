import { useInfiniteQuery } from '@tanstack/react-query';
import { getExportAuditEventsUrl, getListAuditEventsQueryKey, listAuditEvents } from '@/api/generated/audit/audit';
import type { AuditFormat, ListAuditEventsParams } from '@/api/generated/model';
import { downloadFile } from '@/lib/download';

/** Entries per page: the API's default, the newest first. */
export const AUDIT_PAGE_SIZE = 50;

type AuditFilters = Omit<ListAuditEventsParams, 'before' | 'pageSize'>;

/**
 * The audit log for these filters, newest first, a page at a time: each next page starts before
 * the last entry of the one above (the server's cursor), so entries written meanwhile never shift
 * the pages. "Load older entries" adds the next page below.
 */
export function useAuditLog(filters: AuditFilters) {
  const params = { ...filters, pageSize: AUDIT_PAGE_SIZE };
  return useInfiniteQuery({
    queryKey: getListAuditEventsQueryKey(params),
    queryFn: ({ pageParam, signal }) => listAuditEvents({ ...params, before: pageParam }, { signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** Downloads the entries the filters select, as CSV or JSON Lines (the server names the file). */
export function exportAuditLog(filters: AuditFilters, format: AuditFormat): Promise<void> {
  return downloadFile(getExportAuditEventsUrl({ ...filters, format }), `audit.${format}`);
}
