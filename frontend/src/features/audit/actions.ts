/**
 * The actions the audit log records (the API's `AuditEvent.action`, `<area>.<verb>`), grouped by
 * area in the order the action filter lists them. The server may record more: an action this
 * client does not know still reads as a sentence (sentence.ts).
 */
export const ACTION_GROUPS = {
  auth: ['auth.signed_in', 'auth.sign_in_failed', 'auth.sign_in_refused', 'auth.recovery_code_used', 'auth.signed_out'],
  // One's second factor: an authenticator app, its recovery codes, passkeys (`passkey`: its name).
  mfa: ['mfa.totp_enabled', 'mfa.totp_disabled', 'mfa.recovery_codes_regenerated', 'mfa.passkey_added', 'mfa.passkey_removed'],
  session: ['session.ended'],
  user: [
    'user.created',
    'user.invitation_sent',
    'user.invitation_accepted',
    'user.updated',
    'user.profile_updated',
    'user.role_changed',
    'user.password_changed',
    'user.password_reset_requested',
    'user.password_reset',
    'user.mfa_reset',
    'user.deactivated',
    'user.reactivated',
    'user.deleted',
    'user.erased',
  ],
  // `sso_*`: its single sign-on (OpenID Connect) set up or changed, and removed.
  enterprise: [
    'enterprise.created',
    'enterprise.updated',
    'enterprise.security_policy_updated',
    'enterprise.sso_updated',
    'enterprise.sso_removed',
    'enterprise.deleted',
    // Deletion with a recovery window: suspended, then restored or purged.
    'enterprise.deletion_scheduled',
    'enterprise.restored',
    'enterprise.purged',
  ],
  platform: ['platform.security_policy_updated'],
  department: ['department.updated', 'department.head_changed', 'department.member_added', 'department.member_removed'],
  report: [
    'report.created',
    'report.updated',
    'report.submitted',
    'report.reviewed',
    'report.approved',
    'report.rejected',
    'report.deleted',
    'report.exported',
  ],
  spreadsheet: ['spreadsheet.created', 'spreadsheet.imported'],
  token: ['token.created', 'token.revoked'],
  webhook: ['webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.disabled'],
  // The mail the platform sends: one that the recipient's mail server refused (about that person).
  email: ['email.bounced'],
} as const;

export type ActionArea = keyof typeof ACTION_GROUPS;
export type KnownAction = (typeof ACTION_GROUPS)[ActionArea][number];

export const ACTION_AREAS = Object.keys(ACTION_GROUPS) as ActionArea[];
const ALL_ACTIONS: readonly string[] = ACTION_AREAS.flatMap((area) => ACTION_GROUPS[area]);

export const isActionArea = (value: string): value is ActionArea => (ACTION_AREAS as readonly string[]).includes(value);
export const isKnownAction = (value: string): value is KnownAction => ALL_ACTIONS.includes(value);

/** `report.approved` → `{ area: 'report', verb: 'approved' }`; null for an action this client does not know. */
export function actionParts(action: string): { area: ActionArea; verb: string } | null {
  if (!isKnownAction(action)) return null;
  const [area, verb] = action.split('.') as [ActionArea, string];
  return { area, verb };
}
