import { describe, expect, it } from 'vitest';
import { oneOf, parsePage } from './list-params';
import { i18n } from '@/i18n';
import { all, rules, translateError } from './validation';

describe('form rules (SPEC §5)', () => {
  it('requires a value', () => {
    expect(rules.required('')).toBe('validation.required');
    expect(rules.required('   ')).toBe('validation.required');
    expect(rules.required(null)).toBe('validation.required');
    expect(rules.required('x')).toBeNull();
  });

  it('checks e-mail addresses', () => {
    expect(rules.email('')).toBe('validation.required');
    expect(rules.email('nope')).toBe('validation.email');
    expect(rules.email('a@b')).toBe('validation.email');
    expect(rules.email(' a@b.co ')).toBeNull();
  });

  it('wants new passwords of at least 8 characters, counted as characters', () => {
    expect(rules.newPassword('')).toBe('validation.required');
    expect(rules.newPassword('1234567')).toBe('validation.passwordMin');
    expect(rules.newPassword('ééééééé')).toBe('validation.passwordMin');
    expect(rules.newPassword('12345678')).toBeNull();
    expect(rules.optionalNewPassword('')).toBeNull();
    expect(rules.optionalNewPassword('short')).toBe('validation.passwordMin');
  });

  it('limits lengths and chains rules in order', () => {
    const name = all(rules.required, rules.maxLength(3));
    expect(name('')).toBe('validation.required');
    expect(name('abcd')).toBe('validation.tooLongMax?max=3');
    expect(name('abc')).toBeNull();
  });

  it('says the limit of a text too long, in the current language and its number format', async () => {
    const tooLong = rules.maxLength(2000)('x'.repeat(2001))!;
    expect(translateError(i18n.getFixedT('en'), tooLong)).toBe('This text is too long: at most 2,000 characters');
    await i18n.loadLanguages('fr');
    expect(translateError(i18n.getFixedT('fr'), tooLong)).toBe('Ce texte est trop long : 2\u202f000 caractères au plus');
    expect(translateError(i18n.getFixedT('en'), 'validation.required')).toBe('This field is required');
  });
});

describe('list parameters', () => {
  it.each([
    [null, 1],
    ['', 1],
    ['0', 1],
    ['-2', 1],
    ['2.5', 1],
    ['abc', 1],
    ['3', 3],
  ])('reads ?page=%j as %i', (value, page) => {
    expect(parsePage(value)).toBe(page);
  });

  it('keeps only known values of a filter', () => {
    expect(oneOf('active', ['active', 'inactive'])).toBe('active');
    expect(oneOf('deleted', ['active', 'inactive'])).toBeUndefined();
    expect(oneOf(null, ['active'])).toBeUndefined();
  });
});
