import type { ParseKeys, TFunction } from 'i18next';
import type { AuditActor, AuditEvent } from '@/api/generated/model';
import { actionParts } from './actions';

/*
 * An audit entry as a sentence in the interface language ("Nora Chef changed Sam Lee's role from
 * Department user to Department head"), and its changes as readable rows. Pure: the words come
 * from `t` (audit.* in the locale files), the facts from the entry.
 */

/** The kinds of things an entry may be about, each with its own words ("the report “Q1”", "le rapport « Q1 »"). */
const TARGET_TYPES = ['report', 'user', 'enterprise', 'department', 'spreadsheet', 'token', 'webhook', 'session'] as const;
type TargetType = (typeof TARGET_TYPES)[number] | 'other';
const isTargetType = (value: string): value is Exclude<TargetType, 'other'> => (TARGET_TYPES as readonly string[]).includes(value);

const ROLES = ['PlatformAdmin', 'EnterpriseCeo', 'DepartmentHead', 'DepartmentUser'] as const;
const REPORT_STATUSES = ['draft', 'submitted', 'reviewed', 'approved', 'rejected'] as const;
const DEPARTMENT_TYPES = ['finance', 'operations', 'sales_marketing', 'human_resources', 'information_technology'] as const;
const isOneOf = <T extends string>(value: unknown, values: readonly T[]): value is T =>
  typeof value === 'string' && (values as readonly string[]).includes(value);

/**
 * Whether French elides "de" before this word ("d'Anne", "d'Administrateur"): a vowel or a mute
 * h. The other language has the same text for both forms, so the test costs it nothing.
 */
const ELIDES = /^[aeiouyhàâäéèêëîïôöùûüœæ]/i;
const elision = (word: string) => (ELIDES.test(word) ? 'elided' : undefined);

/** The entry's `changes` as an object (the API types it `unknown`). */
function changesOf(event: AuditEvent): Record<string, unknown> {
  const { changes } = event;
  return changes && typeof changes === 'object' && !Array.isArray(changes) ? (changes as Record<string, unknown>) : {};
}

/** `[before, after]`, as the server writes a changed field; a fact (`{ format: "pdf" }`, a list of events) is not one. */
function changePair(key: string, value: unknown): [unknown, unknown] | null {
  if (!Array.isArray(value) || value.length !== 2) return null;
  // A webhook's events, made with two, are a list of names; changed, they are two lists.
  if (key === 'events' && value.every((item) => typeof item === 'string')) return null;
  return [value[0], value[1]];
}

/** Who acted: their name when it happened, or what they were (someone, a program, the platform). */
export function actorName(actor: AuditActor, t: TFunction): string {
  if (actor.name) return actor.name;
  if (actor.type === 'system') return t('audit.actors.platform');
  if (actor.type === 'token') return t('audit.actors.program');
  return t('audit.actors.someone');
}

/** A role in the app's words ("Department head"), or as the server wrote it. */
const roleLabel = (value: unknown, t: TFunction): string => (isOneOf(value, ROLES) ? t(`roles.${value}`) : String(value ?? '—'));

type TargetWords = { target: string; targetOf: string; whose: string };

/**
 * What the entry is about, in the forms the sentences need: as a subject or object ("the report
 * “Q1”"), after "of" (French "du rapport « Q1 »", "d'Anne"), and as an owner ("Sam Lee's").
 */
function targetWords(event: AuditEvent, fallbackType: string, t: TFunction): TargetWords {
  const rawType = event.targetType ?? fallbackType;
  const type: TargetType = isTargetType(rawType) ? rawType : 'other';
  const email = changesOf(event).email;
  let name = event.targetName ?? (rawType === 'user' && typeof email === 'string' ? email : null);
  // A department is named by its type (`finance`): in the interface language.
  if (type === 'department' && isOneOf(name, DEPARTMENT_TYPES)) name = t(`departmentTypes.${name}`);
  const base = `audit.targets.${type}`;
  if (!name) {
    const unnamed = t(`${base}.unnamed` as ParseKeys);
    return {
      target: unnamed,
      targetOf: t(`${base}.ofUnnamed` as ParseKeys),
      whose: type === 'user' ? t('audit.targets.user.whoseUnnamed') : unnamed,
    };
  }
  const target = t(`${base}.named` as ParseKeys, { name });
  return {
    target,
    targetOf: t(`${base}.of` as ParseKeys, { name, context: type === 'user' ? elision(name) : undefined }),
    whose: type === 'user' ? t('audit.targets.user.whose', { name }) : target,
  };
}

/** What a sentence adds to the usual words, and which variant of it reads right ("turned off", not "updated"). */
function specifics(action: string, event: AuditEvent, t: TFunction): { context?: string; values: Record<string, string> } {
  const changes = changesOf(event);
  switch (action) {
    case 'user.role_changed': {
      const pair = changePair('role', changes.role);
      if (!pair) return { context: 'noRoles', values: {} };
      const from = roleLabel(pair[0], t);
      return { values: { from: t('audit.phrases.from', { value: from, context: elision(from) }), to: roleLabel(pair[1], t) } };
    }
    case 'report.exported': {
      const format = changes.format;
      return typeof format === 'string' && format ? { values: { fileFormat: format.toUpperCase() } } : { context: 'noFormat', values: {} };
    }
    case 'webhook.updated': {
      // Only turned off or back on: said so; any other change is an update.
      const pair = changePair('enabled', changes.enabled);
      if (pair && Object.keys(changes).length === 1) return { context: pair[1] === true ? 'on' : 'off', values: {} };
      return { values: {} };
    }
    case 'mfa.passkey_added':
    case 'mfa.passkey_removed': {
      // The passkey's name as it was then.
      const passkey = changes.passkey;
      return typeof passkey === 'string' && passkey ? { values: { passkey } } : { context: 'noName', values: {} };
    }
    case 'user.created':
      // Made by single sign-on at the person's first sign-in (the actor is the person).
      return changes.provisionedBy === 'sso' ? { context: 'sso', values: {} } : { values: {} };
    case 'session.ended':
      // Usually about a person's session; otherwise about the session itself.
      return event.targetType && event.targetType !== 'user' ? { context: 'noUser', values: {} } : { values: {} };
    default:
      return { values: {} };
  }
}

/** The entry as one sentence in the interface language; a generic one for an action this client does not know. */
export function auditSentence(event: AuditEvent, t: TFunction): string {
  const actor = actorName(event.actor, t);
  const known = actionParts(event.action);
  if (!known) {
    const hasTarget = Boolean(event.targetType || event.targetId || event.targetName);
    const { target } = targetWords(event, 'other', t);
    return t('audit.sentences.generic', { actor, action: event.action, target, context: hasTarget ? undefined : 'noTarget' });
  }
  // The area names the target when the server did not (`report.*` is about a report; `mfa.*`, a person).
  const fallbackType = known.area === 'auth' || known.area === 'email' || known.area === 'mfa' ? 'user' : known.area;
  const words = targetWords(event, fallbackType, t);
  const { context, values } = specifics(event.action, event, t);
  return t(`audit.sentences.${known.area}.${known.verb}` as ParseKeys, { actor, ...words, ...values, context });
}

/** One changed field or fact, in words: `Status: Submitted → Approved`, `Format: PDF`. */
export type ChangeRow = { key: string; field: string; before?: string; after?: string; value?: string };

/** The field names the server writes, in the interface language; others as written. */
const FIELDS = [
  'status',
  'role',
  'url',
  'events',
  'description',
  'enabled',
  'fullName',
  'email',
  'departmentId',
  'reviewNotes',
  'format',
  'passwordChanged',
  'name',
  'isActive',
  'title',
  'scopes',
  'headId',
  'locale',
  'sessionsEnded',
  'kind',
  'reason',
  'passkey',
  'mfaRequiredRoles',
  // An enterprise's single sign-on (`enterprise.sso_updated`), and what it did (`user.created`, sign-ins).
  'issuer',
  'clientId',
  'clientSecret',
  'domains',
  'required',
  'provisioning',
  'defaultRole',
  'defaultDepartmentId',
  'breakGlassUserId',
  'acceptUnverifiedEmail',
  'requireMfa',
  'provisionedBy',
  'subject',
  'via',
] as const;

/** The kinds of e-mail the platform sends (`kind` of an `email.bounced` entry). */
const EMAIL_KINDS = ['invitation', 'password_reset', 'sign_in_alert', 'activity'] as const;
const LOCALES = ['en', 'fr'] as const;
const PROVISIONING = ['just_in_time', 'invitation_only'] as const;

function valueText(field: string, value: unknown, t: TFunction): string {
  // An enterprise without a second-factor rule of its own follows the platform's.
  if (field === 'mfaRequiredRoles' && value === null) return t('audit.values.platformDefault');
  if (value === null || value === undefined || value === '') return t('audit.values.none');
  if (typeof value === 'boolean') return value ? t('audit.values.yes') : t('audit.values.no');
  if ((field === 'role' || field === 'mfaRequiredRoles' || field === 'defaultRole') && isOneOf(value, ROLES)) return t(`roles.${value}`);
  if ((field === 'provisionedBy' || field === 'via' || field === 'method') && value === 'sso') return t('audit.values.sso');
  if (field === 'provisioning' && isOneOf(value, PROVISIONING)) return t(`audit.values.provisioning.${value}`);
  if (field === 'clientSecret' && value === 'changed') return t('audit.values.changed');
  if (field === 'status' && isOneOf(value, REPORT_STATUSES)) return t(`reportStatus.${value}`);
  if (field === 'status' && (value === 'active' || value === 'inactive')) return t(`userStatus.${value}`);
  if (field === 'format' && typeof value === 'string') return value.toUpperCase();
  if (field === 'locale' && isOneOf(value, LOCALES)) return t(`language.${value}`);
  if (field === 'kind' && isOneOf(value, EMAIL_KINDS)) return t(`audit.values.emailKinds.${value}`);
  if (Array.isArray(value)) return value.length > 0 ? value.map((item) => valueText(field, item, t)).join(', ') : t('audit.values.none');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The entry's changes as rows: a field's before and after, or a fact's value. */
export function changeRows(event: AuditEvent, t: TFunction): ChangeRow[] {
  return Object.entries(changesOf(event)).map(([key, raw]) => {
    const field = isOneOf(key, FIELDS) ? t(`audit.fields.${key}`) : key;
    const pair = changePair(key, raw);
    return pair ? { key, field, before: valueText(key, pair[0], t), after: valueText(key, pair[1], t) } : { key, field, value: valueText(key, raw, t) };
  });
}
