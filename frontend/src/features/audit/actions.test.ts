import { beforeAll, describe, expect, it } from 'vitest';
import { i18n } from '@/i18n';
import '@/i18n/signed-in';
import { ACTION_AREAS, ACTION_GROUPS, actionParts } from './actions';

beforeAll(() => i18n.loadLanguages('fr'));

const KNOWN = ACTION_AREAS.flatMap((area) => ACTION_GROUPS[area]);

describe('the audit actions this client knows', () => {
  it('include the second factor’s, the security rules’ and the recovery code’s', () => {
    expect(KNOWN).toEqual(
      expect.arrayContaining([
        'auth.recovery_code_used',
        'mfa.totp_enabled',
        'mfa.totp_disabled',
        'mfa.recovery_codes_regenerated',
        'mfa.passkey_added',
        'mfa.passkey_removed',
        'user.mfa_reset',
        'enterprise.security_policy_updated',
        'platform.security_policy_updated',
        'enterprise.sso_updated',
        'enterprise.sso_removed',
      ]),
    );
  });

  it.each(['en', 'fr'])('each have an area, a label and a sentence in %s', (lng) => {
    for (const area of ACTION_AREAS) {
      expect(i18n.exists(`audit.areas.${area}`, { lng }), `audit.areas.${area}`).toBe(true);
      expect(i18n.exists(`audit.areaAll.${area}`, { lng }), `audit.areaAll.${area}`).toBe(true);
    }
    for (const action of KNOWN) {
      const { area, verb } = actionParts(action)!;
      expect(i18n.exists(`audit.actions.${area}.${verb}`, { lng }), `audit.actions.${action}`).toBe(true);
      expect(i18n.exists(`audit.sentences.${area}.${verb}`, { lng }), `audit.sentences.${action}`).toBe(true);
    }
  });
});
