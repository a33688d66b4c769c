import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
// The plain fetch functions of the generated enterprises module, wrapped below.
import {
  deleteEnterpriseSso,
  getEnterpriseSso,
  getGetEnterpriseSsoQueryKey,
  getListSsoDomainsQueryKey,
  listSsoDomains,
  updateEnterpriseSso,
  verifySsoDomain,
} from '@/api/generated/enterprises/enterprises';
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
    onSuccess: (saved) => {
      client.setQueryData(getGetEnterpriseSsoQueryKey(enterpriseId), saved);
      // Domains added or dropped by the save.
      void client.invalidateQueries({ queryKey: getListSsoDomainsQueryKey(enterpriseId) });
    },
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

/** GET /enterprises/{id}/sso/domains: each claimed domain and its proof. */
export function useSsoDomains(enterpriseId: string) {
  return useQuery({
    queryKey: getListSsoDomainsQueryKey(enterpriseId),
    queryFn: ({ signal }) => listSsoDomains(enterpriseId, { signal }),
    enabled: Boolean(enterpriseId),
  });
}

/**
 * POST /enterprises/{id}/sso/domains/{domain}/verify: its TXT record looked up (or, with
 * `approve`, the platform admin's approval); the answer replaces the domain in the list.
 */
export function useVerifySsoDomainMutation(enterpriseId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ domain, approve }: { domain: string; approve: boolean }) => verifySsoDomain(enterpriseId, domain, approve ? { approve } : undefined),
    onSettled: () => client.invalidateQueries({ queryKey: getListSsoDomainsQueryKey(enterpriseId) }),
  });
}
