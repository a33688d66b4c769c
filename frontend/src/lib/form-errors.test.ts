import { describe, expect, it } from 'vitest';
import { ApiRequestError, NetworkError } from '@/api/mutator';
import { firstErrorField, serverFieldErrors } from './form-errors';

const validation = (fields: Record<string, string>) => new ApiRequestError(400, { code: 'validation_failed', message: 'Please check your input', fields });
const FIELDS = ['name', 'ceoEmail', 'ceoPassword'] as const;

describe('serverFieldErrors', () => {
  it('maps each refused field to the message of its code', () => {
    const { errors, unshown } = serverFieldErrors(validation({ name: 'required', ceoEmail: 'invalid_email', ceoPassword: 'too_long' }), FIELDS);
    expect(errors).toEqual({ name: 'validation.required', ceoEmail: 'validation.email', ceoPassword: 'validation.tooLong' });
    expect(unshown).toEqual([]);
  });

  it('says "Password must be at least 8 characters" for a short password, "Minimum 8 characters required" elsewhere', () => {
    const error = validation({ ceoPassword: 'too_short', name: 'too_short' });
    expect(serverFieldErrors(error, FIELDS, { passwordFields: ['ceoPassword'] }).errors).toEqual({
      ceoPassword: 'validation.passwordMin',
      name: 'validation.minLength',
    });
  });

  it('says a common or trivial password is too easy to guess', () => {
    const error = validation({ ceoPassword: 'too_weak' });
    expect(serverFieldErrors(error, FIELDS, { passwordFields: ['ceoPassword'] }).errors).toEqual({ ceoPassword: 'validation.passwordWeak' });
  });

  it('asks for a name without line breaks or control characters (`invalid_character`)', () => {
    expect(serverFieldErrors(validation({ name: 'invalid_character' }), FIELDS).errors).toEqual({ name: 'validation.invalidCharacter' });
  });

  it('falls back to "Please check your input" for an unknown code', () => {
    expect(serverFieldErrors(validation({ name: 'invalid' }), FIELDS).errors).toEqual({ name: 'validation.general' });
  });

  it('reports fields the form does not have, and renames the ones it has under another name', () => {
    const { errors, unshown } = serverFieldErrors(validation({ headId: 'invalid', userId: 'invalid' }), ['person'], { rename: { userId: 'person' } });
    expect(errors).toEqual({ person: 'validation.general' });
    expect(unshown).toEqual(['headId']);
  });

  it('shows a taken e-mail address (409 `conflict`, field `taken`) on the field the server names', () => {
    const conflict = new ApiRequestError(409, { code: 'conflict', message: 'This email address cannot be used', fields: { ceoEmail: 'taken' } });
    expect(serverFieldErrors(conflict, FIELDS).errors).toEqual({ ceoEmail: 'validation.emailTaken' });
    expect(serverFieldErrors(conflict, FIELDS, { emailField: 'ceoEmail' }).errors).toEqual({ ceoEmail: 'validation.emailTaken' });
  });

  it('shows a 409 conflict without fields on the e-mail field, when the form names one', () => {
    const conflict = new ApiRequestError(409, { code: 'conflict', message: 'This email address cannot be used' });
    expect(serverFieldErrors(conflict, FIELDS, { emailField: 'ceoEmail' }).errors).toEqual({ ceoEmail: 'validation.emailTaken' });
    expect(serverFieldErrors(conflict, FIELDS).errors).toEqual({});
  });

  it('shows a taken enterprise name (409 `conflict`, `name: taken`) on the name field with its own message, not on the e-mail field', () => {
    const conflict = new ApiRequestError(409, { code: 'conflict', message: 'An enterprise with this name already exists', fields: { name: 'taken' } });
    const options = { emailField: 'ceoEmail', takenMessages: { name: 'enterprises.nameTaken' } } as const;
    expect(serverFieldErrors(conflict, FIELDS, options).errors).toEqual({ name: 'enterprises.nameTaken' });
    // A taken e-mail address keeps its message when a name message is given.
    const email = new ApiRequestError(409, { code: 'conflict', message: 'This email address cannot be used', fields: { ceoEmail: 'taken' } });
    expect(serverFieldErrors(email, FIELDS, options).errors).toEqual({ ceoEmail: 'validation.emailTaken' });
  });

  it('ignores anything that is not an API answer', () => {
    expect(serverFieldErrors(new NetworkError(new TypeError('offline')), FIELDS)).toEqual({ errors: {}, unshown: [] });
    expect(serverFieldErrors(new Error('boom'), FIELDS)).toEqual({ errors: {}, unshown: [] });
  });
});

describe('firstErrorField', () => {
  it('follows the form order, not the order of the errors', () => {
    expect(firstErrorField({ ceoPassword: 'x', name: 'y' }, FIELDS)).toBe('name');
    expect(firstErrorField({}, FIELDS)).toBeUndefined();
  });
});
