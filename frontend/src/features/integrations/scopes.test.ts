import { describe, expect, it } from 'vitest';
import { parseScope, scopesOf, toggleScope } from './scopes';

describe('the scope grid’s rules', () => {
  it('checks read along with write, keeps read when write is unchecked, and drops the area when read is', () => {
    const withWrite = toggleScope({}, 'reports', 'write', true);
    expect(withWrite).toEqual({ reports: 'write' });
    // Unchecking read while write is checked changes nothing: write includes it.
    expect(toggleScope(withWrite, 'reports', 'read', false)).toEqual({ reports: 'write' });
    const readOnly = toggleScope(withWrite, 'reports', 'write', false);
    expect(readOnly).toEqual({ reports: 'read' });
    expect(toggleScope(readOnly, 'reports', 'read', false)).toEqual({});
  });

  it('sends the strongest level of each area, in the grid’s order', () => {
    expect(scopesOf({ webhooks: 'read', reports: 'write', enterprises: 'read' })).toEqual(['enterprises:read', 'reports:write', 'webhooks:read']);
    expect(scopesOf({})).toEqual([]);
  });

  it('reads the scopes it knows, and nothing else', () => {
    expect(parseScope('users:write')).toEqual({ area: 'users', level: 'write' });
    expect(parseScope('users:admin')).toBeNull();
    expect(parseScope('payroll:read')).toBeNull();
    expect(parseScope('users:read:extra')).toBeNull();
  });
});
