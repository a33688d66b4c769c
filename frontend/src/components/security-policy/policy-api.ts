import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
// The plain fetch functions of the generated security module, wrapped below.
import {
  getEnterpriseSecurityPolicy,
  getGetEnterpriseSecurityPolicyQueryKey,
  getGetPlatformSecurityPolicyQueryKey,
  getPlatformSecurityPolicy,
  updateEnterpriseSecurityPolicy,
  updatePlatformSecurityPolicy,
} from '@/api/generated/security/security';
import type { Role } from '@/api/generated/model';

/** GET /enterprises/{id}/security-policy: its own roles, or null, and the platform's default. */
export function useEnterpriseSecurityPolicy(enterpriseId: string) {
  return useQuery({
    queryKey: getGetEnterpriseSecurityPolicyQueryKey(enterpriseId),
    queryFn: ({ signal }) => getEnterpriseSecurityPolicy(enterpriseId, { signal }),
    enabled: Boolean(enterpriseId),
  });
}

/** PUT /enterprises/{id}/security-policy: tenant roles, or null to follow the platform's default. */
export function useUpdateEnterpriseSecurityPolicyMutation(enterpriseId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (mfaRequiredRoles: Role[] | null) => updateEnterpriseSecurityPolicy(enterpriseId, { mfaRequiredRoles }),
    onSuccess: (saved) => client.setQueryData(getGetEnterpriseSecurityPolicyQueryKey(enterpriseId), saved),
  });
}

/** GET /platform/security-policy (the admin's). */
export function usePlatformSecurityPolicy() {
  return useQuery({ queryKey: getGetPlatformSecurityPolicyQueryKey(), queryFn: ({ signal }) => getPlatformSecurityPolicy({ signal }) });
}

/** PUT /platform/security-policy: enterprises that follow the default see it too. */
export function useUpdatePlatformSecurityPolicyMutation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (mfaRequiredRoles: Role[]) => updatePlatformSecurityPolicy({ mfaRequiredRoles }),
    onSuccess: (saved) => {
      client.setQueryData(getGetPlatformSecurityPolicyQueryKey(), saved);
      return client.invalidateQueries({ predicate: (query) => typeof query.queryKey[0] === 'string' && query.queryKey[0].endsWith('/security-policy') });
    },
  });
}
