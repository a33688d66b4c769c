import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
// Only the plain fetch functions of the auth module: the sign-in page shares that module, and
// using its react-query hooks here would put react-query into the sign-in page's bundle.
import { changeMyPassword, updateMe } from '@/api/generated/auth/auth';
import type { ChangePassword, PasskeyInfo, Reauthentication, UpdateMe, User } from '@/api/generated/model';
import {
  confirmTotpEnrollment,
  deletePasskey,
  disableTotp,
  getGetMfaStatusQueryKey,
  getListPasskeysQueryKey,
  getMfaStatus,
  listPasskeys,
  regenerateRecoveryCodes,
  renamePasskey,
  startTotpEnrollment,
} from '@/api/generated/security/security';
import { registerPasskey } from '@/components/passkeys/ceremonies';
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

const mfaStatusQuery = { queryKey: getGetMfaStatusQueryKey(), queryFn: ({ signal }: { signal: AbortSignal }) => getMfaStatus({ signal }) };

/** GET /auth/mfa: whether an authenticator is on, the passkeys and recovery codes, and whether the policy requires a second factor. */
export function useMfaStatus() {
  return useQuery(mfaStatusQuery);
}

/**
 * The second factor changed: its status is read again, and the account's `mfaEnabled` (an
 * authenticator or any passkey) follows it, as the header and lists show it. A failed read
 * leaves them as they were: the change itself went through.
 */
function mfaChanged(client: QueryClient) {
  void invalidate.users(client);
  return client
    .fetchQuery({ ...mfaStatusQuery, staleTime: 0 })
    .then((status) => {
      const enabled = status.totpEnabled || status.passkeys > 0;
      const current = session.get();
      if (current.status === 'signed_in' && current.user.mfaEnabled !== enabled) session.updateUser({ ...current.user, mfaEnabled: enabled });
    })
    .catch(() => undefined);
}

/** POST /auth/mfa/totp: a new secret to scan (nothing changes at sign-in before it is confirmed). */
export function useStartTotpMutation() {
  return useMutation({ mutationFn: () => startTotpEnrollment() });
}

/** POST /auth/mfa/totp/confirm: the first code turns it on; answers the recovery codes. */
export function useConfirmTotpMutation() {
  const client = useQueryClient();
  return useMutation({ mutationFn: (code: string) => confirmTotpEnrollment({ code }), onSuccess: () => mfaChanged(client) });
}

/** DELETE /auth/mfa/totp, with a code or the password. */
export function useDisableTotpMutation() {
  const client = useQueryClient();
  return useMutation({ mutationFn: (proof: Reauthentication) => disableTotp(proof), onSuccess: () => mfaChanged(client) });
}

/** POST /auth/mfa/recovery-codes, with a code or the password: ten new codes, the old ones dead. */
export function useRegenerateRecoveryCodesMutation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (proof: Reauthentication) => regenerateRecoveryCodes(proof),
    onSuccess: () => client.invalidateQueries({ queryKey: getGetMfaStatusQueryKey() }),
  });
}

/** GET /auth/webauthn/credentials: one's passkeys (20 at most), oldest first. */
export function usePasskeys() {
  return useQuery({ queryKey: getListPasskeysQueryKey(), queryFn: ({ signal }) => listPasskeys({ signal }) });
}

/** The passkeys changed: their list, and the second factor they stand for. */
function passkeysChanged(client: QueryClient) {
  void client.invalidateQueries({ queryKey: getListPasskeysQueryKey() });
  return mfaChanged(client);
}

/** A new passkey, named: the server's options, the browser's prompt, its answer (`registerPasskey`). */
export function useAddPasskeyMutation() {
  const client = useQueryClient();
  return useMutation({ mutationFn: (name: string) => registerPasskey(name), onSuccess: () => passkeysChanged(client) });
}

/** PUT /auth/webauthn/credentials/{id}: a passkey's new name. */
export function useRenamePasskeyMutation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name }: Pick<PasskeyInfo, 'id' | 'name'>) => renamePasskey(id, { name }),
    onSuccess: () => client.invalidateQueries({ queryKey: getListPasskeysQueryKey() }),
  });
}

/** DELETE /auth/webauthn/credentials/{id}: it no longer signs in (the person is told by e-mail). */
export function useRemovePasskeyMutation() {
  const client = useQueryClient();
  return useMutation({ mutationFn: (passkey: PasskeyInfo) => deletePasskey(passkey.id), onSuccess: () => passkeysChanged(client) });
}
