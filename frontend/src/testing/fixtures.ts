import type {
  ApiError,
  ApiToken,
  AuditEvent,
  CeoDashboard,
  CreatedApiToken,
  Department,
  DepartmentType,
  Enterprise,
  EnterpriseDetail,
  EnterpriseSecurityPolicy,
  EnterpriseUsage,
  SsoSettings,
  InvitationStatus,
  LoginResponse,
  MfaStatus,
  ReportDetail,
  Role,
  Session,
  User,
  UserActivity,
  UserSummary,
  Webhook,
  WebhookDelivery,
  WebhookWithSecret,
} from '@/api/generated/model';

/*
 * Test data, built from the generated API types (@/api/generated/model): a fixture that drifts
 * from what the server sends is a type error. Bodies and error texts are the server's own.
 */

export function makeUser(role: Role = 'PlatformAdmin', overrides: Partial<User> = {}): User {
  return {
    id: '0190f3c2-0000-7000-8000-000000000001',
    role,
    fullName: 'Ada Lovelace',
    email: 'ada@example.com',
    status: 'active',
    lastLogin: null,
    departmentId: role === 'DepartmentHead' || role === 'DepartmentUser' ? '0190f3c2-0000-7000-8000-0000000000d1' : null,
    enterpriseId: role === 'PlatformAdmin' ? null : '0190f3c2-0000-7000-8000-0000000000e1',
    enterpriseName: role === 'PlatformAdmin' ? null : 'Acme Corp',
    createdAt: '2026-01-15T09:30:00Z',
    locale: 'en',
    invitation: null,
    notifications: { reports: true, signIns: true, invitations: true },
    mfaEnabled: false,
    erased: false,
    ...overrides,
  };
}

/** Someone invited who has not chosen a password yet: the invitation was sent on 1 March, for 7 days. */
export function makeInvitedUser(role: Role = 'DepartmentUser', overrides: Partial<User> = {}, status: InvitationStatus = 'pending'): User {
  return makeUser(role, {
    lastLogin: null,
    invitation: { status, sentAt: '2026-03-01T09:00:00Z', expiresAt: '2026-03-08T09:00:00Z' },
    ...overrides,
  });
}

/** The short form of a user that reports, departments and activities carry. */
export function summaryOf({ id, fullName, email, role }: User): UserSummary {
  return { id, fullName, email: email ?? '', role };
}

/** POST /auth/login's answer. */
export function makeLoginResponse(user: User, overrides: Partial<LoginResponse> = {}): LoginResponse {
  return { token: 'tok', user, deviceToken: 'dev-1', ...overrides };
}

/** A JSON answer, as the server writes it. Prefer the typed builders below for its body. */
export function jsonResponse(status: number, body?: unknown, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  });
}

/** An error answer as the server writes it: problem details (`application/problem+json`) around
 * the contract's `code`, `message` and `fields`. */
export function apiError(status: number, body: Pick<ApiError, 'code' | 'message'> & Partial<ApiError>, headers: Record<string, string> = {}): Response {
  const problem: ApiError = {
    type: `urn:enterprise-platform:problem:${body.code}`,
    title: `HTTP ${status}`,
    status,
    detail: body.message,
    instance: '/api/v1/test',
    requestId: 'test-request',
    ...body,
  };
  return new Response(JSON.stringify(problem), { status, headers: { 'Content-Type': 'application/problem+json', ...headers } });
}

/** The error answers of the server (backend/src/error.rs), with its codes and (English) messages. */
export const serverErrors = {
  validation: (fields: Record<string, string>) => apiError(400, { code: 'validation_failed', message: 'Please check your input', fields }),
  invalidCredentials: () => apiError(401, { code: 'invalid_credentials', message: 'Invalid email or password' }),
  sessionExpired: () => apiError(401, { code: 'session_expired', message: 'Your session has expired. Please login again.' }),
  accountInactive: () => apiError(403, { code: 'account_inactive', message: 'This account is inactive' }),
  forbidden: () => apiError(403, { code: 'forbidden', message: 'You are not authorized to perform this action' }),
  notFound: () => apiError(404, { code: 'not_found', message: 'Resource not found' }),
  /** An e-mail address another account uses: 409 naming the field (`email`, or `ceoEmail` when creating an enterprise). */
  emailTaken: (field: 'email' | 'ceoEmail') => apiError(409, { code: 'conflict', message: 'This email address cannot be used', fields: { [field]: 'taken' } }),
  /** A name another enterprise has, ignoring case and accents: 409 naming the `name` field. */
  enterpriseNameTaken: () => apiError(409, { code: 'conflict', message: 'An enterprise with this name already exists', fields: { name: 'taken' } }),
  rateLimited: (retryAfterSeconds: number) =>
    apiError(429, { code: 'rate_limited', message: 'Too many attempts. Please try again later.' }, { 'Retry-After': String(retryAfterSeconds) }),
  internal: () => apiError(500, { code: 'internal', message: 'Server error. Please try again later.' }),
};

const ENTERPRISE_ID = '0190f3c2-0000-7000-8000-0000000000e1';

export function makeEnterprise(overrides: Partial<Enterprise> = {}): Enterprise {
  return {
    id: ENTERPRISE_ID,
    name: 'Acme Corp',
    description: 'Makes everything',
    isActive: true,
    createdAt: '2026-01-15T09:30:00Z',
    updatedAt: '2026-01-16T10:00:00Z',
    ceo: { id: '0190f3c2-0000-7000-8000-0000000000c1', fullName: 'Cora Ceo', email: 'cora@acme.test', role: 'EnterpriseCeo' },
    deletionScheduledAt: null,
    purgeAfter: null,
    ...overrides,
  };
}

/** The server's order of the five departments (`ORDER` in backend/src/store/departments.rs). */
export const DEPARTMENT_ORDER: readonly DepartmentType[] = ['finance', 'operations', 'sales_marketing', 'human_resources', 'information_technology'];

/** The five departments, in the server's order; the second one (operations) is makeUser's department. */
export function makeDepartments(enterpriseId = ENTERPRISE_ID, overrides: Partial<Record<DepartmentType, Partial<Department>>> = {}): Department[] {
  return DEPARTMENT_ORDER.map((type, index) => ({
    id: `0190f3c2-0000-7000-8000-0000000000d${index}`,
    enterpriseId,
    type,
    description: '',
    head: null,
    members: [],
    ...overrides[type],
  }));
}

export function makeEnterpriseDetail(overrides: Partial<EnterpriseDetail> = {}): EnterpriseDetail {
  return { ...makeEnterprise(), departments: makeDepartments(), userCount: 1, reportCount: 0, ...overrides };
}

export function makeReportDetail(author: User, overrides: Partial<ReportDetail> = {}): ReportDetail {
  return {
    id: 'r1',
    departmentId: author.departmentId ?? '0190f3c2-0000-7000-8000-0000000000d1',
    title: 'Q1',
    content: 'Numbers',
    periodStart: '2026-01-01',
    periodEnd: '2026-03-31',
    status: 'draft',
    data: null,
    createdBy: summaryOf(author),
    createdAt: '2026-04-01T10:00:00Z',
    updatedAt: '2026-04-01T10:00:00Z',
    submittedAt: null,
    reviewedBy: null,
    reviewedAt: null,
    reviewNotes: null,
    history: [],
    ...overrides,
  };
}

export function makeCeoDashboard(overrides: Partial<CeoDashboard> = {}): CeoDashboard {
  return {
    enterpriseId: ENTERPRISE_ID,
    enterpriseName: 'Acme Corp',
    departments: [],
    totals: { submitted: 0, reviewed: 0, approved: 0, rejected: 0 },
    pendingReviews: 0,
    recentActivity: [],
    ...overrides,
  };
}

/** One page of a list (`PageUser`, `PageEnterprise`, `PageReport`...). */
export type Page<T> = { items: T[]; total: number; page: number; pageSize: number };

export function page<T>(items: T[], total = items.length, pageSize = 20, pageNumber = 1): Page<T> {
  return { items, total, page: pageNumber, pageSize };
}

/** A live session signed in from London on Firefox, as GET /monitoring/sessions lists it. */
export function makeSession(user: UserSummary, overrides: Partial<Session> = {}): Session {
  return {
    id: '0190f3c2-0000-7000-8000-0000000005e1',
    user,
    enterpriseId: ENTERPRISE_ID,
    ipAddress: '81.2.69.142',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
    browser: 'Firefox 128.0',
    os: 'Linux',
    deviceType: 'desktop',
    city: 'London',
    country: 'GB',
    latitude: 51.5142,
    longitude: -0.0931,
    createdAt: '2026-03-01T09:00:00Z',
    lastSeenAt: '2026-03-01T10:30:00Z',
    expiresAt: '2026-03-02T09:00:00Z',
    endedAt: null,
    endReason: null,
    active: true,
    current: false,
    flags: [],
    signInMethod: 'password',
    ...overrides,
  };
}

/** One row of GET /monitoring/user-activity. */
export function makeUserActivity(user: UserSummary, overrides: Partial<UserActivity> = {}): UserActivity {
  return {
    user,
    sessionCount: 2,
    activeSessions: 1,
    lastSeenAt: '2026-03-01T10:30:00Z',
    activeSeconds: 7500,
    places: [{ city: 'London', country: 'GB' }],
    ...overrides,
  };
}

/** A live personal access token as GET /api-tokens lists it (never the secret): used once, read-only on reports. */
export function makeApiToken(overrides: Partial<ApiToken> = {}): ApiToken {
  return {
    id: '0190f3c2-0000-7000-8000-0000000007a1',
    name: 'Nightly export',
    scopes: ['reports:read'],
    prefix: 'ept_k3Xq9',
    createdAt: '2026-03-01T12:00:00Z',
    expiresAt: '2026-05-30T12:00:00Z',
    lastUsedAt: '2026-03-02T12:00:00Z',
    enterpriseId: null,
    createdBy: '0190f3c2-0000-7000-8000-000000000001',
    ...overrides,
  };
}

/** POST /api-tokens' answer: the token and, this once, its secret. */
export function makeCreatedApiToken(overrides: Partial<CreatedApiToken> = {}): CreatedApiToken {
  return { ...makeApiToken({ lastUsedAt: null }), token: 'ept_k3Xq9sEcReT0nLyOnCe_aBcDeFgHiJkLmNoPqRsTuVwX', ...overrides };
}

/** An enterprise's webhook as GET /webhooks lists it (never its secret): on, hearing approved reports. */
export function makeWebhook(overrides: Partial<Webhook> = {}): Webhook {
  return {
    id: '0190f3c2-0000-7000-8000-0000000009a1',
    enterpriseId: '0190f3c2-0000-7000-8000-0000000000e1',
    url: 'https://hooks.example.com/reports',
    events: ['report.approved'],
    description: 'Bookkeeping sync',
    enabled: true,
    disabledReason: null,
    failingSince: null,
    createdAt: '2026-03-01T12:00:00Z',
    updatedAt: '2026-03-01T12:00:00Z',
    ...overrides,
  };
}

/** POST /webhooks' answer (and rotate-secret's): the webhook and, this once, its signing secret. */
export function makeWebhookWithSecret(overrides: Partial<WebhookWithSecret> = {}): WebhookWithSecret {
  return { ...makeWebhook(), secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', ...overrides };
}

/** One delivery of a webhook: delivered at the first attempt. */
export function makeWebhookDelivery(overrides: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    id: '0190f3c2-0000-7000-8000-0000000009d1',
    webhookId: '0190f3c2-0000-7000-8000-0000000009a1',
    eventType: 'report.approved',
    status: 'delivered',
    attempts: 1,
    lastStatus: 204,
    lastError: null,
    nextAttemptAt: null,
    deliveredAt: '2026-03-02T09:00:01Z',
    createdAt: '2026-03-02T09:00:00Z',
    ...overrides,
  };
}

/** An audit log entry: a CEO approved a report, from London in Firefox. */
export function makeAuditEvent(overrides: Partial<AuditEvent> = {}): AuditEvent {
  const event = {
    id: '0190f3c2-0000-7000-8000-000000000aa1',
    at: '2026-03-02T09:00:00Z',
    enterpriseId: '0190f3c2-0000-7000-8000-0000000000e1',
    actor: { type: 'user', id: '0190f3c2-0000-7000-8000-000000000001', name: 'Nora Chef' },
    action: 'report.approved',
    targetType: 'report',
    targetId: '0190f3c2-0000-7000-8000-0000000000f1',
    targetName: 'Q1 figures',
    ip: '81.2.69.142',
    place: 'London, GB',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
    changes: { status: ['submitted', 'approved'], reviewNotes: false },
    ...overrides,
  };
  // The contract's names for the same values (API.md), as the server sends them.
  return {
    occurredAt: event.at,
    actorType: event.actor.type,
    ipAddress: event.ip,
    details: event.changes,
    ...event,
    actor: { fullName: event.actor.name, ...event.actor },
  };
}

/** GET /auth/mfa: no second factor, none required. */
export function makeMfaStatus(overrides: Partial<MfaStatus> = {}): MfaStatus {
  return { totpEnabled: false, passkeys: 0, recoveryCodesLeft: 0, required: false, ...overrides };
}

/** GET /enterprises/{id}/security-policy: following the platform's default, which requires nothing. */
export function makeEnterpriseSecurityPolicy(overrides: Partial<EnterpriseSecurityPolicy> = {}): EnterpriseSecurityPolicy {
  return { mfaRequiredRoles: null, platformDefault: [], ...overrides };
}

/** GET /enterprises/{id}/sso: none set up (`configured: false` and the defaults of a new one), unless overridden. */
export function makeSsoSettings(overrides: Partial<SsoSettings> = {}): SsoSettings {
  return {
    configured: false,
    clientSecretSet: false,
    domains: [],
    required: false,
    provisioning: 'invitation_only',
    defaultRole: 'DepartmentUser',
    breakGlassReady: false,
    acceptUnverifiedEmail: false,
    requireMfa: false,
    redirectUri: 'https://platform.example/sign-in/sso',
    ...overrides,
  };
}

/** An enterprise's usage: `days` days up to 2026-03-31 with nothing counted, unless `daily` says otherwise. */
export function makeUsage(overrides: Partial<EnterpriseUsage> = {}, days = 30): EnterpriseUsage {
  const daily = Array.from({ length: days }, (_, i) => ({
    date: new Date(Date.UTC(2026, 2, 31 - (days - 1) + i)).toISOString().slice(0, 10),
    apiCalls: 0,
    emails: 0,
    exports: 0,
    signIns: 0,
  }));
  return { current: { people: 1, activeSessions: 1, storageBytes: 1_200_000, spreadsheets: 0, reports: 0 }, limits: {}, ownLimits: {}, daily, ...overrides };
}
