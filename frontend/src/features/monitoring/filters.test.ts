import { describe, expect, it } from 'vitest';
import { type FilterValues, activityQuery, dateRange, placeSessionsQuery, placesQuery, sessionQuery } from './filters';

const none: FilterValues = { show: '', flagged: '', from: '', to: '', q: '', userId: '', enterpriseId: '' };
const ID = '0190f3c2-0000-7000-8000-0000000000e2';
const ceo = { isAdmin: false, page: 1, pageSize: 20 };
const admin = { isAdmin: true, page: 3, pageSize: 20 };

describe('the monitoring filters as API queries', () => {
  it('asks for live sessions by default, and for all of them with show=all', () => {
    expect(sessionQuery(none, ceo)).toEqual({ active: true, page: 1, pageSize: 20 });
    expect(sessionQuery({ ...none, show: 'all' }, ceo)).toEqual({ page: 1, pageSize: 20 });
  });

  it('passes flagged, user, dates and a trimmed search', () => {
    expect(sessionQuery({ ...none, flagged: '1', userId: ID, from: '2026-03-01', to: '2026-03-31', q: '  london ' }, ceo)).toEqual({
      active: true,
      flagged: true,
      userId: ID,
      from: '2026-03-01',
      to: '2026-03-31',
      q: 'london',
      page: 1,
      pageSize: 20,
    });
  });

  it('sends the enterprise only for the platform admin', () => {
    expect(sessionQuery({ ...none, enterpriseId: ID }, admin).enterpriseId).toBe(ID);
    expect(sessionQuery({ ...none, enterpriseId: ID }, ceo).enterpriseId).toBeUndefined();
    expect(activityQuery({ ...none, enterpriseId: ID }, admin)).toEqual({ enterpriseId: ID, page: 3, pageSize: 20 });
  });

  it.each([
    ['a user id that is no UUID', { userId: 'x; drop' }],
    ['a day that does not exist', { from: '2026-02-30x' }],
    ['a date in another format', { to: '03/31/2026' }],
    ['an unknown flag value', { flagged: 'yes' }],
  ])('leaves out %s (a hand-edited URL must not become a 400)', (_, patch) => {
    expect(sessionQuery({ ...none, ...patch }, ceo)).toEqual({ active: true, page: 1, pageSize: 20 });
  });

  it('drops an end before the start and says so', () => {
    expect(dateRange({ from: '2026-03-31', to: '2026-03-01' })).toEqual({ from: '2026-03-31', to: undefined, inverted: true });
    expect(dateRange({ from: '2026-03-01', to: '2026-03-01' })).toEqual({ from: '2026-03-01', to: '2026-03-01', inverted: false });
  });

  it('cuts the search to the 200 characters the server takes', () => {
    expect(sessionQuery({ ...none, q: 'a'.repeat(250) }, ceo).q).toHaveLength(200);
  });

  it('gives the activity only the filters it takes (no state, flag or user)', () => {
    expect(activityQuery({ ...none, show: 'all', flagged: '1', userId: ID, q: 'hal', from: '2026-03-01' }, ceo)).toEqual({
      from: '2026-03-01',
      q: 'hal',
      page: 1,
      pageSize: 20,
    });
  });

  it("asks the map's places with the list's filters, grouped for the map's zoom (a whole level from 0 to 18)", () => {
    expect(placesQuery({ ...none, flagged: '1', userId: ID, q: ' lon ' }, { isAdmin: false, zoom: 4 })).toEqual({
      active: true,
      flagged: true,
      userId: ID,
      q: 'lon',
      zoom: 4,
    });
    expect([-1, 0, 3.4, 18, 21].map((zoom) => placesQuery(none, { isAdmin: true, zoom }).zoom)).toEqual([0, 0, 3, 18, 18]);
    expect(placesQuery({ ...none, show: 'all', enterpriseId: ID }, { isAdmin: true, zoom: 2 })).toEqual({ enterpriseId: ID, zoom: 2 });
  });

  it("lists one place's sessions with the same filters, by its city and country", () => {
    expect(placeSessionsQuery({ ...none, flagged: '1' }, { city: 'London', country: 'GB' }, { isAdmin: false, page: 2, pageSize: 20 })).toEqual({
      active: true,
      flagged: true,
      page: 2,
      pageSize: 20,
      city: 'London',
      country: 'GB',
    });
  });
});
