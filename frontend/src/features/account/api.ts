import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
// Only the plain fetch functions of the auth module: the sign-in page shares that module, and
// using its react-query hooks here would put react-query into the sign-in page's bundle.
import { changeMyPassword, updateMe } from '@/api/generated/auth/auth';
import type { ChangePassword, Reauthentication, UpdateMe, User } from '@/api/generated/model';
import {
  confirmTotpEnrollment,
  disableTotp,
  getGetMfaStatusQueryKey,
  getMfaStatus,
  regenerateRecoveryCodes,
  startTotpEnrollment,
} from '@/api/generated/security/security';
import { invalidate } from '@/lib/query-invalidation';
import { session } from '@/lib/session';

/**
 * PUT /auth/me. Its answer, the account as it now is, is for the caller to keep with
 * `keepAccount` once it has said so: keeping it re-renders the profile's sections (they follow
 * the account), and react-query drops a `mutate` call's own callbacks once their component is gone.
 */
export function useUpdateMeMutation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ data }: { data: UpdateMe }) => updateMe(data),
    // The name shows in the user lists too.
    onSuccess: () => invalidate.users(client),
  });
}

/** The account as PUT /auth/me answered it: shown at once in the header and the screens. */
export const keepAccount = (user: User) => session.updateUser(user);

/** PUT /auth/me/password: the person's other sessions end, so the session lists change. */
export function useChangeMyPasswordMutation() {
  const client = useQueryClient();
  return useMutation({ mutationFn: ({ data }: { data: ChangePassword }) => changeMyPassword(data), onSuccess: () => invalidate.sessions(client) });
}

/** GET /auth/mfa: whether an authenticator is on, the recovery codes left, and whether the policy requires one. */
export function useMfaStatus() {
  return useQuery({ queryKey: getGetMfaStatusQueryKey(), queryFn: ({ signal }) => getMfaStatus({ signal }) });
}

/** The second factor changed: its status, and the account's `mfaEnabled` as the header and lists show it. */
function mfaChanged(client: QueryClient, enabled: boolean) {
  const current = session.get();
  if (current.status === 'signed_in' && current.user.mfaEnabled !== enabled) session.updateUser({ ...current.user, mfaEnabled: enabled });
  void invalidate.users(client);
  return client.invalidateQueries({ queryKey: getGetMfaStatusQueryKey() });
}

/** POST /auth/mfa/totp: a new secret to scan (nothing changes at sign-in before it is confirmed). */
export function useStartTotpMutation() {
  return useMutation({ mutationFn: () => startTotpEnrollment() });
}

/** POST /auth/mfa/totp/confirm: the first code turns it on; answers the recovery codes. */
export function useConfirmTotpMutation() {
  const client = useQueryClient();
  return useMutation({ mutationFn: (code: string) => confirmTotpEnrollment({ code }), onSuccess: () => mfaChanged(client, true) });
}

/** DELETE /auth/mfa/totp, with a code or the password. */
export function useDisableTotpMutation() {
  const client = useQueryClient();
  return useMutation({ mutationFn: (proof: Reauthentication) => disableTotp(proof), onSuccess: () => mfaChanged(client, false) });
}

/** POST /auth/mfa/recovery-codes, with a code or the password: ten new codes, the old ones dead. */
export function useRegenerateRecoveryCodesMutation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (proof: Reauthentication) => regenerateRecoveryCodes(proof),
    onSuccess: () => client.invalidateQueries({ queryKey: getGetMfaStatusQueryKey() }),
  });
}
