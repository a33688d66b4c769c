import { describe, expect, it } from 'vitest';
import { ALL_EVENTS, areaState, eventParts, toggleEvents } from './webhook-events';

describe('webhook events', () => {
  it('are the thirteen the server knows, by area', () => {
    expect(ALL_EVENTS).toEqual([
      'report.created',
      'report.submitted',
      'report.reviewed',
      'report.approved',
      'report.rejected',
      'report.deleted',
      'user.created',
      'user.updated',
      'user.deactivated',
      'user.deleted',
      'spreadsheet.created',
      'session.started',
      'session.ended',
    ]);
    expect(eventParts('report.approved')).toEqual({ area: 'report', verb: 'approved' });
  });

  it('checks and unchecks one event or a whole area, keeping the form’s order', () => {
    let chosen = toggleEvents([], ['user.deleted'], true);
    chosen = toggleEvents(chosen, ['report.approved'], true);
    expect(chosen).toEqual(['report.approved', 'user.deleted']);
    expect(areaState(chosen, 'report')).toBe('some');
    expect(areaState(chosen, 'session')).toBe('none');

    chosen = toggleEvents(chosen, ['session.started', 'session.ended'], true);
    expect(areaState(chosen, 'session')).toBe('all');
    chosen = toggleEvents(chosen, ['report.approved', 'user.deleted'], false);
    expect(chosen).toEqual(['session.started', 'session.ended']);
  });

  it('keeps an event this client does not know (the server may know more)', () => {
    expect(toggleEvents(['invoice.paid', 'user.created'], ['report.created'], true)).toEqual(['report.created', 'user.created', 'invoice.paid']);
  });
});
