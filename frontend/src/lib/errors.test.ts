import { describe, expect, it } from 'vitest';
import { ApiRequestError } from '@/api/mutator';
import { i18n } from '@/i18n';
import { errorMessage } from './errors';

const conflict = (reason?: string) =>
  new ApiRequestError(409, { code: 'conflict', message: 'This user has written reports; deactivate the account instead', reason });

describe('errorMessage', () => {
  it('explains a conflict by its reason in the reader’s language', async () => {
    expect(errorMessage(conflict('has_reports'), i18n.t)).toBe('This person has written reports, which keep their author: deactivate the account instead.');
    expect(errorMessage(conflict('own_account'), i18n.t)).toBe('You cannot deactivate, demote or delete your own account.');
    expect(errorMessage(conflict('too_many_tokens'), i18n.t)).toBe('There are already 50 live tokens. Revoke one that is no longer used first.');
    expect(errorMessage(conflict('too_many_webhooks'), i18n.t)).toBe('There are already 20 webhooks. Delete one that is no longer used first.');
    await i18n.changeLanguage('fr');
    expect(errorMessage(conflict('has_reports'), i18n.t)).toBe('Cette personne a rédigé des rapports, qui gardent leur auteur : désactivez plutôt le compte.');
    expect(errorMessage(conflict('too_many_tokens'), i18n.t)).toBe("Il y a déjà 50 jetons actifs. Révoquez d'abord un jeton qui ne sert plus.");
    expect(errorMessage(conflict('too_many_webhooks'), i18n.t)).toBe("Il y a déjà 20 webhooks. Supprimez d'abord celui qui ne sert plus.");
    await i18n.changeLanguage('en');
  });

  it('shows the server’s message for a conflict it has no words for', () => {
    expect(errorMessage(conflict('something_new'), i18n.t)).toBe('This user has written reports; deactivate the account instead');
  });
});

describe('errorMessage for a busy server', () => {
  it('says when to try again, in the reader’s language', async () => {
    const busy = new ApiRequestError(503, { code: 'unavailable', message: 'The server is busy. Please try again in a moment.' }, 5);
    expect(errorMessage(busy, i18n.t)).toBe('The server is busy. Please try again in 5 seconds.');
    await i18n.changeLanguage('fr');
    expect(errorMessage(busy, i18n.t)).toBe('Le serveur est occupé. Veuillez réessayer dans 5 secondes.');
    await i18n.changeLanguage('en');
  });
});

describe('errorMessage for a refused status change', () => {
  it('says the report’s status no longer allows it, in the reader’s language', async () => {
    const refused = new ApiRequestError(409, { code: 'invalid_transition', message: 'A report cannot go from submitted to submitted' });
    expect(errorMessage(refused, i18n.t)).toBe("The report's status no longer allows this: reload the page to see where it stands.");
    await i18n.changeLanguage('fr');
    expect(errorMessage(refused, i18n.t)).toBe('Le statut du rapport ne le permet plus : rechargez la page pour voir où il en est.');
    await i18n.changeLanguage('en');
  });
});

describe('errorMessage for a workbook too costly to compute', () => {
  it('says the formulas cost too much, in the reader’s language', async () => {
    const refused = new ApiRequestError(400, {
      code: 'validation_failed',
      message: 'Sheet1!A1 =COUNTBLANK(B1:XFD1048576) reads too many cells',
      fields: { content: 'too_complex' },
    });
    expect(errorMessage(refused, i18n.t)).toBe(
      "This workbook's formulas take too much to compute (a range of millions of cells, or a calculation that runs too long). Make their ranges smaller.",
    );
    await i18n.changeLanguage('fr');
    expect(errorMessage(refused, i18n.t)).toBe(
      'Les formules de ce classeur demandent trop de calcul (une plage de millions de cellules, ou un calcul trop long). Réduisez leurs plages.',
    );
    await i18n.changeLanguage('en');
  });
});

describe('errorMessage for an enterprise’s limit', () => {
  const reached = (limit: string, status = 409, retryAfter?: number) =>
    new ApiRequestError(status, { code: 'limit_reached', message: 'The enterprise has reached a limit', limit }, retryAfter);

  it('names the limit reached and what to do, in the reader’s language', async () => {
    expect(errorMessage(reached('people'), i18n.t)).toBe(
      "Your enterprise has as many people as its limit allows. Remove someone, or ask the platform's administrator to raise the limit.",
    );
    expect(errorMessage(reached('storageBytes'), i18n.t)).toMatch(/^Your enterprise's storage is full\./);
    expect(errorMessage(reached('apiCallsPerMinute', 429, 20), i18n.t)).toBe(
      'Your enterprise has made as many requests this minute as its limit allows. Try again in 20 seconds.',
    );
    await i18n.changeLanguage('fr');
    expect(errorMessage(reached('people'), i18n.t)).toMatch(/^Votre entreprise compte autant de personnes que sa limite le permet\./);
    expect(errorMessage(reached('apiCallsPerMinute', 429), i18n.t)).toMatch(/Réessayez dans un instant\.$/);
    await i18n.changeLanguage('en');
  });
});
