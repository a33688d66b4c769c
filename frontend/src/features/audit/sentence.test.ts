import type { TFunction } from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '@/api/generated/model';
import { i18n } from '@/i18n';
import '@/i18n/signed-in';
import { makeAuditEvent } from '@/testing/fixtures';
import { auditSentence, changeRows } from './sentence';

const nora = { type: 'user', id: '0190f3c2-0000-7000-8000-000000000001', name: 'Nora Chef' };
const sam = { targetType: 'user', targetId: '0190f3c2-0000-7000-8000-0000000000b2', targetName: 'Sam Lee' };
/** Sam acting on their own account (their second factor). */
const samActing = { type: 'user', id: sam.targetId, name: 'Sam Lee' };
const webhook = { targetType: 'webhook', targetId: '0190f3c2-0000-7000-8000-0000000009a1', targetName: 'https://hooks.example.com/in' };

let en: TFunction;
let fr: TFunction;

beforeAll(async () => {
  await i18n.loadLanguages('fr');
  en = i18n.getFixedT('en');
  fr = i18n.getFixedT('fr');
});

/** The entry as the server would write it: Nora Chef acting, nothing changed unless said. */
const entry = (overrides: Partial<AuditEvent>) => makeAuditEvent({ actor: nora, changes: {}, ...overrides });

// French puts a no-break space inside « » and before a colon; the expectations spell it \u00a0.
describe('an audit entry as a sentence', () => {
  it.each<[string, Partial<AuditEvent>, string, string]>([
    [
      'a role change, with the app’s role names',
      { action: 'user.role_changed', ...sam, changes: { role: ['DepartmentUser', 'DepartmentHead'] } },
      "Nora Chef changed Sam Lee's role from Department user to Department head",
      'Nora Chef a changé le rôle de Sam Lee de Membre du département à Chef de département',
    ],
    [
      'a role change, French eliding “de” before a vowel',
      { action: 'user.role_changed', targetType: 'user', targetName: 'Anne Roy', changes: { role: ['PlatformAdmin', 'EnterpriseCeo'] } },
      "Nora Chef changed Anne Roy's role from Platform Administrator to CEO",
      "Nora Chef a changé le rôle d'Anne Roy d'Administrateur de la plateforme à PDG",
    ],
    [
      'a report approved',
      { action: 'report.approved', changes: { status: ['submitted', 'approved'], reviewNotes: false } },
      'Nora Chef approved the report “Q1 figures”',
      'Nora Chef a approuvé le rapport «\u00a0Q1 figures\u00a0»',
    ],
    [
      'a report submitted',
      { action: 'report.submitted', actor: { type: 'user', id: null, name: 'Hal Head' } },
      'Hal Head submitted the report “Q1 figures” for review',
      'Hal Head a soumis le rapport «\u00a0Q1 figures\u00a0» pour examen',
    ],
    [
      'a report exported, with its format',
      { action: 'report.exported', changes: { format: 'pdf' } },
      'Nora Chef exported the report “Q1 figures” as PDF',
      'Nora Chef a exporté le rapport «\u00a0Q1 figures\u00a0» en PDF',
    ],
    [
      'a report exported, format unknown',
      { action: 'report.exported' },
      'Nora Chef exported the report “Q1 figures”',
      'Nora Chef a exporté le rapport «\u00a0Q1 figures\u00a0»',
    ],
    [
      'an invitation sent',
      { action: 'user.invitation_sent', ...sam },
      'Nora Chef sent an invitation to Sam Lee',
      'Nora Chef a envoyé une invitation à Sam Lee',
    ],
    [
      'an invitation accepted, by the person invited',
      { action: 'user.invitation_accepted', actor: { type: 'user', id: null, name: 'Sam Lee' }, ...sam },
      'Sam Lee accepted their invitation and chose a password',
      'Sam Lee a accepté son invitation et choisi un mot de passe',
    ],
    ['a password changed', { action: 'user.password_changed', ...sam }, 'Nora Chef changed their password', 'Nora Chef a changé son mot de passe'],
    [
      'a reset link asked for',
      { action: 'user.password_reset_requested', ...sam },
      'A password reset link was requested for Sam Lee',
      'Un lien de réinitialisation du mot de passe a été demandé pour Sam Lee',
    ],
    [
      'a password reset',
      { action: 'user.password_reset', ...sam },
      'Sam Lee chose a new password from a reset link',
      'Sam Lee a choisi un nouveau mot de passe depuis un lien de réinitialisation',
    ],
    ['a profile updated', { action: 'user.profile_updated', ...sam }, 'Nora Chef updated their profile', 'Nora Chef a modifié son profil'],
    [
      'an e-mail bounced, about the person it was for',
      { action: 'email.bounced', actor: { type: 'system', id: null, name: null }, ...sam, changes: { kind: 'invitation', reason: '550 no such user' } },
      'An e-mail to Sam Lee bounced: the mail server refused it',
      "Un e-mail à Sam Lee n'a pas été distribué\u00a0: le serveur de messagerie l'a refusé",
    ],
    ['a report deleted, its title unknown', { action: 'report.deleted', targetName: null }, 'Nora Chef deleted a report', 'Nora Chef a supprimé un rapport'],
    [
      'a webhook made',
      { action: 'webhook.created', ...webhook, changes: { events: ['report.approved', 'report.rejected'] } },
      'Nora Chef created the webhook https://hooks.example.com/in',
      'Nora Chef a créé le webhook https://hooks.example.com/in',
    ],
    [
      'a webhook turned off by hand',
      { action: 'webhook.updated', ...webhook, changes: { enabled: [true, false] } },
      'Nora Chef turned off the webhook https://hooks.example.com/in',
      'Nora Chef a désactivé le webhook https://hooks.example.com/in',
    ],
    [
      'a webhook turned back on',
      { action: 'webhook.updated', ...webhook, changes: { enabled: [false, true] } },
      'Nora Chef turned the webhook https://hooks.example.com/in back on',
      'Nora Chef a réactivé le webhook https://hooks.example.com/in',
    ],
    [
      'a webhook’s address changed',
      { action: 'webhook.updated', ...webhook, changes: { url: ['https://old.example.com', 'https://hooks.example.com/in'] } },
      'Nora Chef updated the webhook https://hooks.example.com/in',
      'Nora Chef a modifié le webhook https://hooks.example.com/in',
    ],
    [
      'a secret rotated',
      { action: 'webhook.secret_rotated', ...webhook },
      'Nora Chef rotated the signing secret of the webhook https://hooks.example.com/in',
      'Nora Chef a renouvelé le secret de signature du webhook https://hooks.example.com/in',
    ],
    [
      'a webhook turned off by the platform for failing, by id only',
      { action: 'webhook.disabled', actor: { type: 'system', id: null, name: null }, targetType: 'webhook', targetName: null, ip: null },
      'The platform turned off a webhook after its deliveries kept failing',
      'La plateforme a désactivé un webhook après des échecs de livraison répétés',
    ],
    ['an account deactivated', { action: 'user.deactivated', ...sam }, "Nora Chef deactivated Sam Lee's account", 'Nora Chef a désactivé le compte de Sam Lee'],
    ['a sign-in', { action: 'auth.signed_in', targetType: null, targetId: null, targetName: null }, 'Nora Chef signed in', 'Nora Chef a ouvert une session'],
    [
      'a failed sign-in, by the address typed',
      {
        action: 'auth.sign_in_failed',
        actor: { type: 'user', id: null, name: null },
        targetType: null,
        targetName: null,
        changes: { email: 'sam@example.com' },
      },
      'A sign-in as sam@example.com failed',
      'Une tentative de connexion en tant que sam@example.com a échoué',
    ],
    [
      'a department’s head changed, the department named in the reader’s language',
      { action: 'department.head_changed', targetType: 'department', targetName: 'sales_marketing' },
      'Nora Chef changed the head of the Sales and marketing department',
      'Nora Chef a changé le chef du département Ventes et marketing',
    ],
    [
      'a token revoked by a program',
      { action: 'token.revoked', actor: { type: 'token', id: null, name: null }, targetType: 'token', targetName: 'CI deploy' },
      'A program revoked the token “CI deploy”',
      'Un programme a révoqué le jeton «\u00a0CI deploy\u00a0»',
    ],
    [
      'a recovery code used to sign in',
      { action: 'auth.recovery_code_used', actor: samActing, ...sam, changes: { email: 'sam@example.com', reason: '9 left' } },
      'Sam Lee used a recovery code to sign in',
      'Sam Lee a utilisé un code de secours pour se connecter',
    ],
    [
      'an authenticator app set up',
      { action: 'mfa.totp_enabled', actor: samActing, ...sam },
      'Sam Lee turned on two-step sign-in with an authenticator app',
      "Sam Lee a activé la connexion en deux étapes avec une application d'authentification",
    ],
    [
      'an authenticator app turned off',
      { action: 'mfa.totp_disabled', actor: samActing, ...sam },
      'Sam Lee turned off their authenticator app',
      "Sam Lee a désactivé son application d'authentification",
    ],
    [
      'new recovery codes',
      { action: 'mfa.recovery_codes_regenerated', actor: samActing, ...sam },
      'Sam Lee made new recovery codes',
      'Sam Lee a créé de nouveaux codes de secours',
    ],
    [
      'a passkey added, with the name it was given',
      { action: 'mfa.passkey_added', actor: samActing, ...sam, changes: { passkey: 'Work laptop' } },
      'Sam Lee added the passkey “Work laptop”',
      "Sam Lee a ajouté la clé d'accès «\u00a0Work laptop\u00a0»",
    ],
    [
      'a passkey removed, its name unknown',
      { action: 'mfa.passkey_removed', actor: samActing, ...sam },
      'Sam Lee removed a passkey',
      "Sam Lee a supprimé une clé d'accès",
    ],
    [
      'a second factor reset by the CEO, French eliding “de”',
      { action: 'user.mfa_reset', targetType: 'user', targetName: 'Anne Roy', changes: { sessionsEnded: 1 } },
      "Nora Chef reset Anne Roy's two-step sign-in",
      "Nora Chef a réinitialisé la connexion en deux étapes d'Anne Roy",
    ],
    [
      'an enterprise’s security rule changed',
      { action: 'enterprise.security_policy_updated', targetType: 'enterprise', targetName: 'Acme', changes: { mfaRequiredRoles: [null, ['DepartmentUser']] } },
      'Nora Chef changed the two-step sign-in rule of the enterprise Acme',
      "Nora Chef a modifié la règle de connexion en deux étapes de l'entreprise Acme",
    ],
    [
      'an enterprise’s single sign-on set up or changed',
      { action: 'enterprise.sso_updated', targetType: 'enterprise', targetName: 'Acme', changes: { required: [false, true] } },
      'Nora Chef changed the single sign-on of the enterprise Acme',
      "Nora Chef a modifié l'authentification unique de l'entreprise Acme",
    ],
    [
      'an enterprise’s single sign-on removed',
      { action: 'enterprise.sso_removed', targetType: 'enterprise', targetName: 'Acme' },
      'Nora Chef removed the single sign-on of the enterprise Acme',
      "Nora Chef a supprimé l'authentification unique de l'entreprise Acme",
    ],
    [
      'an account single sign-on created at its first sign-in (the person acting)',
      { action: 'user.created', actor: samActing, ...sam, changes: { role: 'DepartmentUser', provisionedBy: 'sso', subject: 'abc' } },
      'An account was created for Sam Lee at their first single sign-on',
      'Un compte a été créé pour Sam Lee à sa première authentification unique',
    ],
    [
      'the platform’s security rule changed',
      { action: 'platform.security_policy_updated', enterpriseId: null, targetType: null, targetId: null, targetName: null },
      "Nora Chef changed the platform's two-step sign-in rule",
      'Nora Chef a modifié la règle de connexion en deux étapes de la plateforme',
    ],
    [
      'an action this client does not know, about something',
      { action: 'invoice.paid', targetType: 'invoice', targetName: 'INV-7' },
      'Nora Chef did “invoice.paid” to “INV-7”',
      'Nora Chef a effectué «\u00a0invoice.paid\u00a0» sur «\u00a0INV-7\u00a0»',
    ],
    [
      'an action this client does not know, about nothing',
      { action: 'backup.made', targetType: null, targetId: null, targetName: null },
      'Nora Chef did “backup.made”',
      'Nora Chef a effectué «\u00a0backup.made\u00a0»',
    ],
  ])('%s', (_, overrides, english, french) => {
    const event = entry(overrides);
    expect(auditSentence(event, en)).toBe(english);
    expect(auditSentence(event, fr)).toBe(french);
  });
});

describe('an audit entry’s changes', () => {
  it('read as a before and an after, or a fact, in the reader’s words', () => {
    const approved = entry({ action: 'report.approved', changes: { status: ['submitted', 'approved'], reviewNotes: true } });
    expect(changeRows(approved, en)).toEqual([
      { key: 'status', field: 'Status', before: 'Submitted', after: 'Approved' },
      { key: 'reviewNotes', field: 'Review notes written', value: 'Yes' },
    ]);
    const role = entry({ action: 'user.role_changed', changes: { role: ['DepartmentUser', 'DepartmentHead'] } });
    expect(changeRows(role, fr)).toEqual([{ key: 'role', field: 'Rôle', before: 'Membre du département', after: 'Chef de département' }]);
  });

  it('tell a webhook’s events, made with two, from a change of its events', () => {
    const made = entry({ action: 'webhook.created', changes: { events: ['report.approved', 'report.rejected'] } });
    expect(changeRows(made, en)).toEqual([{ key: 'events', field: 'Events', value: 'report.approved, report.rejected' }]);
    const changed = entry({ action: 'webhook.updated', changes: { events: [['report.approved'], ['report.approved', 'user.created']] } });
    expect(changeRows(changed, en)).toEqual([{ key: 'events', field: 'Events', before: 'report.approved', after: 'report.approved, user.created' }]);
  });

  it('name the language, the kind of e-mail and the sessions ended of the account actions', () => {
    const profile = entry({ action: 'user.profile_updated', changes: { locale: ['en', 'fr'] } });
    expect(changeRows(profile, en)).toEqual([{ key: 'locale', field: 'Language', before: 'English', after: 'Français' }]);
    const bounced = entry({ action: 'email.bounced', changes: { kind: 'password_reset', reason: '550 no such user' } });
    expect(changeRows(bounced, fr)).toEqual([
      { key: 'kind', field: 'E-mail', value: 'Réinitialisation du mot de passe' },
      { key: 'reason', field: 'Motif', value: '550 no such user' },
    ]);
    expect(changeRows(entry({ action: 'user.password_changed', changes: { sessionsEnded: 2 } }), en)).toEqual([
      { key: 'sessionsEnded', field: 'Sessions ended', value: '2' },
    ]);
  });

  it('name the passkey of a passkey action, and the roles of a security rule (null: the platform’s default)', () => {
    expect(changeRows(entry({ action: 'mfa.passkey_added', changes: { passkey: 'Work laptop' } }), en)).toEqual([
      { key: 'passkey', field: 'Passkey', value: 'Work laptop' },
    ]);
    const rule = entry({ action: 'enterprise.security_policy_updated', changes: { mfaRequiredRoles: [null, ['DepartmentUser', 'DepartmentHead']] } });
    expect(changeRows(rule, fr)).toEqual([
      {
        key: 'mfaRequiredRoles',
        field: 'Rôles tenus à la connexion en deux étapes',
        before: 'La règle par défaut de la plateforme',
        after: 'Membre du département, Chef de département',
      },
    ]);
    const platform = entry({ action: 'platform.security_policy_updated', changes: { mfaRequiredRoles: [[], ['PlatformAdmin']] } });
    expect(changeRows(platform, en)).toEqual([
      { key: 'mfaRequiredRoles', field: 'Roles that must use two-step sign-in', before: '—', after: 'Platform Administrator' },
    ]);
  });

  it('name the settings of a single sign-on and what it did, in the reader’s words', () => {
    const updated = entry({
      action: 'enterprise.sso_updated',
      changes: {
        domains: [null, ['acme.example']],
        required: [false, true],
        provisioning: ['invitation_only', 'just_in_time'],
        defaultRole: [null, 'DepartmentHead'],
        clientSecret: 'changed',
      },
    });
    expect(changeRows(updated, en)).toEqual([
      { key: 'domains', field: 'E-mail domains', before: '—', after: 'acme.example' },
      { key: 'required', field: 'Single sign-on required', before: 'No', after: 'Yes' },
      { key: 'provisioning', field: 'People without an account', before: 'Invited people only', after: 'Account created at the first sign-in' },
      { key: 'defaultRole', field: 'Role of new accounts', before: '—', after: 'Department head' },
      { key: 'clientSecret', field: 'Client secret', value: 'Changed' },
    ]);
    const made = entry({ action: 'user.created', changes: { provisionedBy: 'sso' } });
    expect(changeRows(made, fr)).toEqual([{ key: 'provisionedBy', field: 'Créé par', value: 'Authentification unique' }]);
    const refused = entry({ action: 'auth.sign_in_refused', changes: { reason: 'not_invited', via: 'sso' } });
    expect(changeRows(refused, en)).toEqual([
      { key: 'reason', field: 'Reason', value: 'not_invited' },
      { key: 'via', field: 'Through', value: 'Single sign-on' },
    ]);
  });

  it('keeps a field it does not know as the server named it', () => {
    expect(changeRows(entry({ changes: { colour: ['red', 'blue'], format: 'csv' } }), en)).toEqual([
      { key: 'colour', field: 'colour', before: 'red', after: 'blue' },
      { key: 'format', field: 'Format', value: 'CSV' },
    ]);
  });
});
