import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router-dom';
import { isApiRequestError } from '@/api/mutator';
import { Role } from '@/api/generated/model';
import { getSpreadsheet, saveSpreadsheet, useCreateSpreadsheet, useDeleteSpreadsheet, useImportSpreadsheet } from '@/api/generated/spreadsheets/spreadsheets';
import { useCurrentUser } from '@/lib/session';

/**
 * The department and spreadsheet of the route, and what the signed-in user may do there: staff
 * work in their own department; the CEO reads any of their enterprise's (the server decides,
 * this only shapes the screens).
 */
export function useSpreadsheetRoute() {
  const { id = '', spreadsheetId = '' } = useParams<'id' | 'spreadsheetId'>();
  const user = useCurrentUser();
  const ceo = user.role === Role.EnterpriseCeo;
  const own = Boolean(id) && user.departmentId === id;
  return { departmentId: id, spreadsheetId, user, ceo, canOpen: own || ceo, canEdit: own && !ceo };
}

const LIST = (departmentId: string) => `/api/v1/departments/${departmentId}/spreadsheets`;

/** A spreadsheet was made, renamed, saved or deleted: its department's lists are stale. */
export const invalidateSpreadsheets = (client: QueryClient, departmentId: string) =>
  client.invalidateQueries({ predicate: (query) => query.queryKey[0] === LIST(departmentId) });

export function useCreateSpreadsheetMutation(departmentId: string) {
  const client = useQueryClient();
  return useCreateSpreadsheet({ mutation: { onSuccess: () => invalidateSpreadsheets(client, departmentId) } });
}

export function useImportSpreadsheetMutation(departmentId: string) {
  const client = useQueryClient();
  return useImportSpreadsheet({ mutation: { onSuccess: () => invalidateSpreadsheets(client, departmentId) } });
}

export function useDeleteSpreadsheetMutation(departmentId: string) {
  const client = useQueryClient();
  return useDeleteSpreadsheet({ mutation: { onSuccess: () => invalidateSpreadsheets(client, departmentId) } });
}

/**
 * Renames a spreadsheet from the list: a save of its current content under the new name. A save
 * that lands between the read and the write (409) is read again once.
 */
export async function renameSpreadsheet(id: string, name: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const current = await getSpreadsheet(id);
    try {
      await saveSpreadsheet(id, { content: current.content, version: current.version, name });
      return;
    } catch (error) {
      if (attempt > 0 || !isApiRequestError(error) || error.status !== 409) throw error;
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs work that needs one of the server's engine slots (downloads, ranges, imports): while the
 * server says it is busy (503), waits as long as its Retry-After says and tries again, a few times.
 */
export async function whenNotBusy<T>(work: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isApiRequestError(error) || error.status !== 503) throw error;
      await sleep(Math.min(10, Math.max(1, error.retryAfter ?? 2)) * 1000);
    }
  }
}
