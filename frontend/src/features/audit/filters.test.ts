import { describe, expect, it } from 'vitest';
import { FILTER_KEYS, type FilterValues, auditQuery, dateRange } from './filters';

const none = Object.fromEntries(FILTER_KEYS.map((key) => [key, ''])) as FilterValues;
const USER = '0190f3c2-0000-7000-8000-0000000000a1';

describe('audit log filters', () => {
  it('send nothing when nothing is chosen', () => {
    expect(auditQuery(none, { isAdmin: true })).toEqual({});
  });

  it('send the chosen days from the start of the first to the start of the day after the last, in the reader’s time zone', () => {
    const query = auditQuery({ ...none, from: '2026-03-01', to: '2026-03-31' }, { isAdmin: false });
    expect(query.from).toBe(new Date(2026, 2, 1).toISOString());
    expect(query.to).toBe(new Date(2026, 3, 1).toISOString());
  });

  it('drop an end before the start, and flag it', () => {
    expect(dateRange({ from: '2026-03-10', to: '2026-03-01' })).toEqual({ from: '2026-03-10', to: undefined, inverted: true });
  });

  it('leave out what a hand-edited URL got wrong', () => {
    const query = auditQuery(
      { ...none, action: 'report.approved; drop', actor: 'nobody', target: ` ${USER.toUpperCase()} `, from: '2026-02-30x', q: '  Q1  ' },
      { isAdmin: false },
    );
    expect(query).toEqual({ target: USER, q: 'Q1' });
  });

  it('take an area or an action, and the enterprise from the platform admin only', () => {
    expect(auditQuery({ ...none, action: 'report', enterpriseId: USER }, { isAdmin: true })).toEqual({ action: 'report', enterpriseId: USER });
    expect(auditQuery({ ...none, action: 'user.role_changed', enterpriseId: USER }, { isAdmin: false })).toEqual({ action: 'user.role_changed' });
  });
});
