import { useListEnterprises } from '@/api/generated/enterprises/enterprises';

/** The largest page the API gives: the enterprise pickers list up to this many. */
const ENTERPRISE_OPTIONS_LIMIT = 100;

/** Enterprises for the admin's pickers (filters, create form), by name. */
export function useEnterpriseOptions(enabled: boolean) {
  const query = useListEnterprises({ page: 1, pageSize: ENTERPRISE_OPTIONS_LIMIT }, { query: { enabled, staleTime: 60_000 } });
  const items = query.data?.items ?? [];
  return {
    query,
    options: [...items].sort((a, b) => a.name.localeCompare(b.name)).map((e) => ({ value: e.id, label: e.name })),
    names: new Map(items.map((e) => [e.id, e.name])),
    partial: query.data ? query.data.total > items.length : false,
  };
}
