import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
// The plain fetch functions of the generated enterprises module, wrapped below.
import { deleteEnterpriseSso, getEnterpriseSso, getGetEnterpriseSsoQueryKey, updateEnterpriseSso } from '@/api/generated/enterprises/enterprises';
import type { SsoSettingsChange } from '@/api/generated/model';

/** GET /enterprises/{id}/sso: the settings (`configured: false` and the defaults when there are none). */
export function useEnterpriseSso(enterpriseId: string) {
  return useQuery({
    queryKey: getGetEnterpriseSsoQueryKey(enterpriseId),
    queryFn: ({ signal }) => getEnterpriseSso(enterpriseId, { signal }),
    enabled: Boolean(enterpriseId),
  });
}

/** PUT /enterprises/{id}/sso: set up or change; the answer is the saved settings. */
export function useUpdateEnterpriseSsoMutation(enterpriseId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (change: SsoSettingsChange) => updateEnterpriseSso(enterpriseId, change),
    onSuccess: (saved) => client.setQueryData(getGetEnterpriseSsoQueryKey(enterpriseId), saved),
  });
}

/** DELETE /enterprises/{id}/sso: its people sign in with passwords again. */
export function useDeleteEnterpriseSsoMutation(enterpriseId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => deleteEnterpriseSso(enterpriseId),
    onSuccess: () => client.invalidateQueries({ queryKey: getGetEnterpriseSsoQueryKey(enterpriseId) }),
  });
}
