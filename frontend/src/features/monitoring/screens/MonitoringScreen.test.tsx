import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { MapPlace, Session } from '@/api/generated/model';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse, makeEnterprise, makeSession, makeUser, makeUserActivity, page, summaryOf } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';
import { optionNames } from '@/testing/select';

// Leaflet needs a laid-out page (jsdom has none): the screen gets a stand-in that lists the places
// it was given to draw, each a button that opens it as a marker would (components/SessionMap.test.tsx
// covers the map, e2e/monitoring.spec.ts the two together).
vi.mock('../components/SessionMap', () => ({
  default: ({ places, label, onOpenPlace }: { places: MapPlace[]; label: string; onOpenPlace: (place: MapPlace, filter: object) => void }) => (
    <ul aria-label={label} data-testid="map-stand-in">
      {places
        .filter((place) => place.latitude !== null)
        .map((place) => (
          <li key={`${place.city}${place.country}`}>
            <button type="button" onClick={() => onOpenPlace(place, { city: place.city, country: place.country })}>
              {place.city} {place.total}
            </button>
          </li>
        ))}
    </ul>
  ),
}));

const enterprise = makeEnterprise({ id: '0190f3c2-0000-7000-8000-0000000000e1', name: 'Acme Corp' });
const other = makeEnterprise({ id: '0190f3c2-0000-7000-8000-0000000000e2', name: 'Globex' });
const ceo = makeUser('EnterpriseCeo', { id: '0190f3c2-0000-7000-8000-0000000000c1', fullName: 'Cora Ceo', enterpriseId: enterprise.id });
const admin = makeUser('PlatformAdmin', { id: '0190f3c2-0000-7000-8000-0000000000a1', fullName: 'Ada Admin' });
const hal = summaryOf(makeUser('DepartmentUser', { id: '0190f3c2-0000-7000-8000-000000000011', fullName: 'Hal Jordan', email: 'hal@acme.test' }));
const gus = summaryOf(makeUser('DepartmentUser', { id: '0190f3c2-0000-7000-8000-000000000012', fullName: 'Gus Globex', email: 'gus@globex.test' }));

const halInLondon = makeSession(hal, { id: '0190f3c2-0000-7000-8000-000000000501' });
const halInLinkoping = makeSession(hal, {
  id: '0190f3c2-0000-7000-8000-000000000502',
  city: 'Linköping',
  country: 'SE',
  latitude: 58.4167,
  longitude: 15.6167,
  browser: 'Chrome 120.0',
  os: 'Windows',
  flags: ['new_country', 'impossible_travel'],
});
const ceoHere = makeSession(summaryOf(ceo), {
  id: '0190f3c2-0000-7000-8000-000000000503',
  ipAddress: '127.0.0.1',
  city: null,
  country: null,
  latitude: null,
  longitude: null,
  current: true,
});
const gusSession = makeSession(gus, { id: '0190f3c2-0000-7000-8000-000000000504', enterpriseId: other.id, city: 'Milton', country: 'US' });

/** The places of these sessions, as `/monitoring/places` counts them (per city; those without a point in one group). */
function placesOf(sessions: Session[]): MapPlace[] {
  const places = new Map<string, MapPlace>();
  for (const s of sessions) {
    const key = s.latitude === null ? 'nowhere' : `${s.city}|${s.country}`;
    const place = places.get(key) ?? {
      city: s.latitude === null ? null : s.city,
      country: s.latitude === null ? null : s.country,
      latitude: s.latitude ?? null,
      longitude: s.longitude ?? null,
      total: 0,
      active: 0,
      flagged: 0,
    };
    places.set(key, { ...place, total: place.total + 1, active: place.active + Number(s.active), flagged: place.flagged + Number(s.flags.length > 0) });
  }
  return [...places.values()];
}

const people = [summaryOf(ceo), hal, gus];

function mockMonitoring(sessions: Session[], extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    'GET /api/v1/monitoring/sessions': jsonResponse(200, page(sessions)),
    'GET /api/v1/monitoring/places': jsonResponse(200, placesOf(sessions)),
    'GET /api/v1/monitoring/user-activity': jsonResponse(200, page([makeUserActivity(hal)])),
    'GET /api/v1/enterprises': jsonResponse(200, page([enterprise, other])),
    // The server's search: names containing `q`.
    'GET /api/v1/users': ({ url }) => {
      const q = url.searchParams.get('q')?.toLowerCase() ?? '';
      return jsonResponse(
        200,
        page(people.filter((p) => p.fullName.toLowerCase().includes(q)).map((p) => makeUser(p.role, { id: p.id, fullName: p.fullName, email: p.email }))),
      );
    },
    ...extra,
  });
}

/** The paths asked of the map's places, in order. */
const placeCalls = (calls: { method: string; path: string }[]) =>
  calls.filter((call) => call.path.startsWith('/api/v1/monitoring/places')).map((call) => call.path);

/** The paths of the session list's table page (pageSize 20), in the order asked. */
const tableCalls = (calls: { method: string; path: string }[]) =>
  calls.filter((call) => call.path.startsWith('/api/v1/monitoring/sessions?') && call.path.includes('pageSize=20')).map((call) => call.path);

const row = (text: string) => screen.getAllByTestId('session-row').find((tr) => tr.textContent?.includes(text))!;

describe('system monitoring', () => {
  it("shows the CEO's sessions with places by country name, translated flags and the caller's own marked, on the map and in the table", async () => {
    mockMonitoring([halInLondon, halInLinkoping, ceoHere]);
    session.start('token', ceo);
    renderApp('/ceo/monitoring');

    expect(await screen.findByRole('heading', { level: 1, name: 'System monitoring' })).toBeInTheDocument();
    await screen.findAllByTestId('session-row');
    expect(row('Linköping')).toHaveTextContent('Linköping, Sweden');
    expect(
      within(row('Linköping'))
        .getAllByTestId('session-flag')
        .map((flag) => flag.textContent),
    ).toEqual(['New country', 'Impossible travel']);
    expect(row('London')).toHaveTextContent('London, United Kingdom');
    expect(row('London')).toHaveTextContent('Firefox 128.0 on Linux');
    expect(row('Cora Ceo')).toHaveTextContent('Your session');
    expect(row('Cora Ceo')).toHaveTextContent('Unknown place');
    // A CEO sees their own enterprise only: no enterprise column, no enterprise filter.
    expect(screen.queryByRole('columnheader', { name: 'Enterprise' })).not.toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: 'Enterprise' })).not.toBeInTheDocument();

    const map = await screen.findByTestId('map-stand-in');
    expect(map).toHaveAccessibleName('Map of the sessions');
    expect(
      within(map)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['London 1', 'Linköping 1']);
    expect(screen.getByTestId('map-summary')).toHaveTextContent('3 sessions in 2 places · 1 flagged');
    expect(screen.getByTestId('map-notes')).toHaveTextContent('One session has no known place');

    const activity = await screen.findAllByTestId('activity-row');
    expect(activity[0]).toHaveTextContent('2 hr 5 min');
    expect(activity[0]).toHaveTextContent('London, United Kingdom');
  });

  it('builds the query from the filters: live by default, then all, flagged only, a search and a date range', async () => {
    const { calls } = mockMonitoring([halInLondon]);
    session.start('token', ceo);
    const user = userEvent.setup();
    const { location } = renderApp('/ceo/monitoring');

    await screen.findAllByTestId('session-row');
    expect(tableCalls(calls)).toEqual(['/api/v1/monitoring/sessions?active=true&page=1&pageSize=20']);
    // The map asks for every session of the same filters, counted per place at its zoom.
    await waitFor(() => expect(placeCalls(calls)).toEqual(['/api/v1/monitoring/places?active=true&zoom=2']));

    await user.click(screen.getByRole('radio', { name: 'All' }));
    await waitFor(() => expect(tableCalls(calls).at(-1)).toBe('/api/v1/monitoring/sessions?page=1&pageSize=20'));
    await user.click(screen.getByRole('checkbox', { name: 'Flagged only' }));
    await waitFor(() => expect(tableCalls(calls).at(-1)).toBe('/api/v1/monitoring/sessions?flagged=true&page=1&pageSize=20'));
    await user.type(screen.getByLabelText('Search'), 'london{Enter}');
    await waitFor(() => expect(tableCalls(calls).at(-1)).toBe('/api/v1/monitoring/sessions?flagged=true&q=london&page=1&pageSize=20'));
    await user.type(screen.getByLabelText('Active from'), '2026-03-01');
    await user.type(screen.getByLabelText('Active until'), '2026-03-31');
    await waitFor(() =>
      expect(tableCalls(calls).at(-1)).toBe('/api/v1/monitoring/sessions?flagged=true&from=2026-03-01&to=2026-03-31&q=london&page=1&pageSize=20'),
    );
    expect(location().search).toBe('?show=all&flagged=1&q=london&from=2026-03-01&to=2026-03-31');
    await waitFor(() => expect(placeCalls(calls).at(-1)).toBe('/api/v1/monitoring/places?flagged=true&from=2026-03-01&to=2026-03-31&q=london&zoom=2'));
    // The activity per user follows the filters it takes.
    await waitFor(() =>
      expect(calls.map((call) => call.path)).toContain('/api/v1/monitoring/user-activity?from=2026-03-01&to=2026-03-31&q=london&page=1&pageSize=20'),
    );
  });

  it("narrows to one user from a session's row", async () => {
    const { calls } = mockMonitoring([halInLondon]);
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/ceo/monitoring');

    await user.click(await screen.findByRole('button', { name: 'Actions for the session of Hal Jordan on Firefox 128.0 on Linux' }));
    await user.click(await screen.findByRole('menuitem', { name: "Show this user's sessions" }));
    await waitFor(() => expect(tableCalls(calls).at(-1)).toBe(`/api/v1/monitoring/sessions?active=true&userId=${hal.id}&page=1&pageSize=20`));
    expect(screen.getByRole('combobox', { name: 'User' })).toHaveValue('Hal Jordan');
  });

  it('asks before logging a session out, naming the user, device and place, then logs it out', async () => {
    const { calls } = mockMonitoring([halInLondon, ceoHere], {
      [`POST /api/v1/monitoring/sessions/${halInLondon.id}/logout`]: new Response(null, { status: 204 }),
    });
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/ceo/monitoring');

    await user.click(await screen.findByRole('button', { name: 'Actions for the session of Hal Jordan on Firefox 128.0 on Linux' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Log out session' }));
    const dialog = await screen.findByRole('dialog', { name: 'Log out session' });
    expect(dialog).toHaveTextContent('Log out Hal Jordan (hal@acme.test) on Firefox 128.0 on Linux in London, United Kingdom?');
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);

    await user.click(within(dialog).getByRole('button', { name: 'Log out session' }));
    expect(await screen.findByText('The session of Hal Jordan was logged out.')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([`/api/v1/monitoring/sessions/${halInLondon.id}/logout`]);
    // The lists are asked again at once, socket or not.
    await waitFor(() => expect(tableCalls(calls)).toHaveLength(2));
  });

  it('says the session was logged out even when its end empties the table before the answer comes', async () => {
    let current = [halInLondon];
    const rendered: { queryClient?: ReturnType<typeof renderApp>['queryClient'] } = {};
    mockMonitoring(current, {
      'GET /api/v1/monitoring/sessions': () => jsonResponse(200, page(current)),
      'GET /api/v1/monitoring/places': () => jsonResponse(200, placesOf(current)),
      // The server has ended it and told every screen (the realtime event) before this answer
      // reaches the browser: the table reads no session any more, and leaves.
      [`POST /api/v1/monitoring/sessions/${halInLondon.id}/logout`]: async () => {
        current = [];
        await act(() => rendered.queryClient!.invalidateQueries({ queryKey: ['/api/v1/monitoring/sessions'] }));
        await waitFor(() => expect(screen.queryAllByTestId('session-row')).toHaveLength(0));
        return new Response(null, { status: 204 });
      },
    });
    session.start('token', ceo);
    const user = userEvent.setup();
    rendered.queryClient = renderApp('/ceo/monitoring').queryClient;

    await user.click(await screen.findByRole('button', { name: 'Actions for the session of Hal Jordan on Firefox 128.0 on Linux' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Log out session' }));
    const dialog = await screen.findByRole('dialog', { name: 'Log out session' });
    await user.click(within(dialog).getByRole('button', { name: 'Log out session' }));
    expect(await screen.findByText('The session of Hal Jordan was logged out.')).toBeInTheDocument();
  });

  it("offers no logout of the caller's own session (signing out does that), but logs out their other ones after asking", async () => {
    const { calls } = mockMonitoring([ceoHere], {
      [`POST /api/v1/monitoring/sessions/${ceoHere.id}/logout-others`]: new Response(null, { status: 204 }),
    });
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/ceo/monitoring');

    await user.click(await screen.findByRole('button', { name: /^Actions for the session of Cora Ceo/ }));
    expect(await screen.findByRole('menuitem', { name: 'Log out other sessions' })).toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: 'Log out session' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('menuitem', { name: 'Log out other sessions' }));
    const dialog = await screen.findByRole('dialog', { name: 'Log out other sessions' });
    expect(dialog).toHaveTextContent('Log out every other session of Cora Ceo (ada@example.com)?');
    expect(dialog).toHaveTextContent('This session (Firefox 128.0 on Linux in Unknown place) stays signed in.');
    await user.click(within(dialog).getByRole('button', { name: 'Log out other sessions' }));
    expect(await screen.findByText('The other sessions of Cora Ceo were logged out.')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([`/api/v1/monitoring/sessions/${ceoHere.id}/logout-others`]);
  });

  it("counts every session of the filters on the map, not a page of them: the same total as the table's", async () => {
    const many: MapPlace[] = [
      { city: 'London', country: 'GB', latitude: 51.5, longitude: -0.09, total: 9000, active: 9000, flagged: 12 },
      { city: 'Milton', country: 'US', latitude: 47.25, longitude: -122.31, total: 3000, active: 3000, flagged: 0 },
      { city: null, country: null, latitude: null, longitude: null, total: 345, active: 345, flagged: 0 },
    ];
    mockApi({
      'GET /api/v1/monitoring/sessions': jsonResponse(200, page([halInLondon], 12_345)),
      'GET /api/v1/monitoring/places': jsonResponse(200, many),
      'GET /api/v1/monitoring/user-activity': jsonResponse(200, page([makeUserActivity(hal)])),
      'GET /api/v1/users': jsonResponse(200, page([])),
    });
    session.start('token', ceo);
    renderApp('/ceo/monitoring');

    expect(await screen.findByTestId('map-summary')).toHaveTextContent('12,345 sessions in 2 places · 12 flagged');
    expect(screen.getByText('Showing 1–20 of 12,345')).toBeInTheDocument();
    expect(screen.getByTestId('map-notes')).toHaveTextContent('345 sessions have no known place');
  });

  it("opens a place's sessions in a side panel, with the screen's filters, a page at a time, and closes it with Escape", async () => {
    const { calls } = mockMonitoring([halInLondon, halInLinkoping], {
      'GET /api/v1/monitoring/sessions': ({ url }) =>
        url.searchParams.get('city') === 'Linköping'
          ? jsonResponse(200, page([halInLinkoping], 25, 20, Number(url.searchParams.get('page'))))
          : jsonResponse(200, page([halInLondon, halInLinkoping])),
    });
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/ceo/monitoring?flagged=1');

    const map = await screen.findByTestId('map-stand-in');
    await user.click(within(map).getByRole('button', { name: 'Linköping 1' }));
    const panel = await screen.findByRole('dialog', { name: 'Sessions in Linköping, Sweden' });
    expect(await within(panel).findByTestId('place-total')).toHaveTextContent('25 sessions');
    expect(within(panel).getByTestId('session-row')).toHaveTextContent('Hal Jordan');
    const panelCalls = () => calls.filter((call) => call.path.includes('city=')).map((call) => call.path);
    expect(panelCalls()).toEqual(['/api/v1/monitoring/sessions?active=true&flagged=true&page=1&pageSize=20&city=Link%C3%B6ping&country=SE']);
    await user.click(within(panel).getByRole('button', { name: 'Page 2' }));
    await waitFor(() =>
      expect(panelCalls().at(-1)).toBe('/api/v1/monitoring/sessions?active=true&flagged=true&page=2&pageSize=20&city=Link%C3%B6ping&country=SE'),
    );

    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Sessions in Linköping, Sweden' })).not.toBeInTheDocument());
  });

  it("says so in the panel when none of the place's sessions match any more", async () => {
    mockMonitoring([halInLondon], {
      'GET /api/v1/monitoring/sessions': ({ url }) => jsonResponse(200, page(url.searchParams.has('city') ? [] : [halInLondon])),
    });
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/ceo/monitoring');

    await user.click(within(await screen.findByTestId('map-stand-in')).getByRole('button', { name: 'London 1' }));
    const panel = await screen.findByRole('dialog', { name: 'Sessions in London, United Kingdom' });
    expect(await within(panel).findByText('No sessions match these filters')).toBeInTheDocument();
    await user.click(within(panel).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('searches the user filter on the server as the user types (after a pause), says when nothing matches, and narrows the table and the map', async () => {
    const { calls } = mockMonitoring([halInLondon]);
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/ceo/monitoring');

    const filter = await screen.findByRole('combobox', { name: 'User' });
    const userCalls = () => calls.filter((call) => call.path.startsWith('/api/v1/users')).map((call) => call.path);
    await waitFor(() => expect(userCalls()).toEqual(['/api/v1/users?page=1&pageSize=20']));
    await user.type(filter, 'zzz');
    expect(await screen.findByText('No user matches')).toBeInTheDocument();
    expect(userCalls()).toEqual(['/api/v1/users?page=1&pageSize=20', '/api/v1/users?q=zzz&page=1&pageSize=20']);
    await user.clear(filter);
    await user.type(filter, 'jor');
    // One search for what was typed, once typing paused: not one per key.
    await waitFor(() => expect(userCalls().at(-1)).toBe('/api/v1/users?q=jor&page=1&pageSize=20'));
    expect(userCalls().filter((path) => path.includes('q=j'))).toEqual(['/api/v1/users?q=jor&page=1&pageSize=20']);
    expect(await optionNames(filter)).toEqual(['Hal Jordan']);
    await user.click(screen.getByRole('option', { name: 'Hal Jordan', hidden: true }));
    await waitFor(() => expect(tableCalls(calls).at(-1)).toBe(`/api/v1/monitoring/sessions?active=true&userId=${hal.id}&page=1&pageSize=20`));
    await waitFor(() => expect(placeCalls(calls).at(-1)).toBe(`/api/v1/monitoring/places?active=true&userId=${hal.id}&zoom=2`));
    expect(filter).toHaveValue('Hal Jordan');
    // Choosing is not a search.
    expect(userCalls().at(-1)).toBe('/api/v1/users?q=jor&page=1&pageSize=20');
  });

  it('says when no session matches the filters, and clears them', async () => {
    const { calls } = mockApi({
      'GET /api/v1/monitoring/sessions': jsonResponse(200, page([])),
      'GET /api/v1/monitoring/places': jsonResponse(200, []),
      'GET /api/v1/monitoring/user-activity': jsonResponse(200, page([])),
      'GET /api/v1/users': jsonResponse(200, page([])),
    });
    session.start('token', ceo);
    const user = userEvent.setup();
    const { location } = renderApp('/ceo/monitoring?flagged=1');

    expect(await screen.findByText('No sessions match')).toBeInTheDocument();
    expect(screen.getByText('No activity matches')).toBeInTheDocument();
    expect(within(await screen.findByTestId('map-stand-in')).queryAllByRole('listitem')).toHaveLength(0);
    expect(screen.getByTestId('map-summary')).toHaveTextContent('No sessions match these filters');
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    expect(location().search).toBe('');
    expect(await screen.findByText('No sessions')).toBeInTheDocument();
    expect(tableCalls(calls).at(-1)).toBe('/api/v1/monitoring/sessions?active=true&page=1&pageSize=20');
  });

  it("shows the admin every enterprise's sessions with their enterprise, and filters by enterprise", async () => {
    const { calls } = mockMonitoring([halInLondon, gusSession]);
    session.start('token', admin);
    const user = userEvent.setup();
    renderApp('/admin/monitoring');

    await screen.findAllByTestId('session-row');
    expect(await within(row('Hal Jordan')).findByRole('link', { name: 'Acme Corp' })).toHaveAttribute('href', `/admin/enterprises/${enterprise.id}`);
    expect(within(row('Gus Globex')).getByRole('link', { name: 'Globex' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('System monitoring');

    const filter = screen.getByRole('combobox', { name: 'Enterprise' });
    await user.type(filter, 'glo');
    await waitFor(() => expect(calls.map((call) => call.path)).toContain('/api/v1/enterprises?q=glo&page=1&pageSize=20'));
    await user.click(await screen.findByRole('option', { name: 'Globex', hidden: true }));
    await waitFor(() => expect(tableCalls(calls).at(-1)).toBe(`/api/v1/monitoring/sessions?active=true&enterpriseId=${other.id}&page=1&pageSize=20`));
    // The user filter then offers that enterprise's people.
    await waitFor(() => expect(calls.map((call) => call.path)).toContain(`/api/v1/users?enterpriseId=${other.id}&page=1&pageSize=20`));
  });

  it('speaks French: country names, flags, durations and the map', async () => {
    mockMonitoring([halInLinkoping]);
    session.start('token', ceo);
    await changeLocale('fr');
    renderApp('/ceo/monitoring');

    expect(await screen.findByRole('heading', { level: 1, name: 'Supervision du système' })).toBeInTheDocument();
    await screen.findAllByTestId('session-row');
    expect(row('Hal Jordan')).toHaveTextContent('Linköping, Suède');
    expect(row('Hal Jordan')).toHaveTextContent('Chrome 120.0 sous Windows');
    expect(
      within(row('Hal Jordan'))
        .getAllByTestId('session-flag')
        .map((flag) => flag.textContent),
    ).toEqual(['Nouveau pays', 'Déplacement impossible']);
    expect(await screen.findByTestId('map-stand-in')).toHaveAccessibleName('Carte des sessions');
    expect(await screen.findByTestId('map-summary')).toHaveTextContent('1 session dans 1 lieu · 1 signalée');
    await userEvent.click(within(screen.getByTestId('map-stand-in')).getByRole('button', { name: 'Linköping 1' }));
    expect(await screen.findByRole('dialog', { name: 'Sessions à Linköping, Suède' })).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    expect((await screen.findAllByTestId('activity-row'))[0]).toHaveTextContent('2 h 5 min');
  });

  it('writes the date filters as a French reader does (dd/mm/yyyy), with a named clear button, and keeps ISO dates in the query', async () => {
    const { calls } = mockMonitoring([halInLondon]);
    session.start('token', ceo);
    await changeLocale('fr');
    const user = userEvent.setup();
    renderApp('/ceo/monitoring?show=all&from=2026-03-01');
    const from = await screen.findByLabelText('Actives à partir du');
    expect(from).toHaveValue('01/03/2026');
    await user.type(screen.getByLabelText("Actives jusqu'au"), '31/03/2026');
    await waitFor(() => expect(tableCalls(calls).at(-1)).toBe('/api/v1/monitoring/sessions?from=2026-03-01&to=2026-03-31&page=1&pageSize=20'));

    await user.click(within(from.closest('.mantine-InputWrapper-root')!).getByRole('button', { name: 'Effacer' }));
    await waitFor(() => expect(tableCalls(calls).at(-1)).toBe('/api/v1/monitoring/sessions?to=2026-03-31&page=1&pageSize=20'));
  });
});
