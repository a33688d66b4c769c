import { MantineProvider } from '@mantine/core';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import countriesUrl from 'world-atlas/countries-110m.json?url';
import type { Session } from '@/api/generated/model';
import '@/i18n/signed-in';
import { forgetAppConfig } from '@/lib/app-config';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse, makeSession, makeUser, summaryOf } from '@/testing/fixtures';
import { forgetOutlines } from '../outlines';
import SessionMap, { FIT_MAX_ZOOM_OUTLINES } from './SessionMap';

// jsdom lays nothing out: Leaflet reads the map's size from these.
beforeEach(() => {
  forgetAppConfig();
  forgetOutlines();
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(400);
});

const hal = summaryOf(makeUser('DepartmentUser', { id: 'hal', fullName: 'Hal Jordan', email: 'hal@acme.test' }));
const dee = summaryOf(makeUser('DepartmentUser', { id: 'dee', fullName: 'Dee Dee', email: 'dee@acme.test' }));
const london = makeSession(hal, { id: 's1', createdAt: '2026-03-01T09:00:00Z', lastSeenAt: '2026-03-01T10:30:00Z' });
const linkoping = { city: 'Linköping', country: 'SE', latitude: 58.4167, longitude: 15.6167 };
const milton = makeSession(dee, { id: 's2', city: 'Milton', country: 'US', latitude: 47.2513, longitude: -122.3149, browser: 'Chrome 120.0', os: 'Windows' });
const nowhere = makeSession(dee, { id: 's3', city: null, country: null, latitude: null, longitude: null });

/** A world without countries: the outlines are not what these tests look at. */
const emptyTopology = { type: 'Topology', objects: { countries: { type: 'GeometryCollection', geometries: [] } }, arcs: [] };

function mockMapFiles(config: unknown = { mapTileUrl: null, mapAttribution: null }) {
  return mockApi({
    'GET /app-config.json': config instanceof Response ? config : jsonResponse(200, config),
    [`GET ${countriesUrl}`]: jsonResponse(200, emptyTopology),
  });
}

function renderMap(sessions: Session[]) {
  return render(
    <MantineProvider>
      <SessionMap sessions={sessions} label="Map of the sessions" describedBy="hint" />
    </MantineProvider>,
  );
}

const markers = (container: HTMLElement) => [...container.querySelectorAll<HTMLElement>('.leaflet-marker-icon')];

describe('the session map', () => {
  it('draws one marker per session with a place, named after its user and place, and fits the view to them', async () => {
    const { calls } = mockMapFiles();
    const { container } = renderMap([london, milton, nowhere]);

    const map = await screen.findByRole('region', { name: 'Map of the sessions' });
    expect(map).toHaveAttribute('aria-describedby', 'hint');
    await waitFor(() => expect(markers(container)).toHaveLength(2));
    expect(screen.getByRole('button', { name: 'Hal Jordan, London, United Kingdom' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Dee Dee, Milton, United States' })).toBeInTheDocument();
    // Both ends of the bounds are in view (800 × 400, 40 px of padding): Milton west, London east.
    const [x1, x2] = markers(container)
      .map((marker) => parseFloat(marker.style.left))
      .sort((a, b) => a - b);
    expect(x1).toBeGreaterThanOrEqual(30);
    expect(x2).toBeLessThanOrEqual(770);
    expect(x2 - x1).toBeGreaterThan(400);
    // The offline base: Natural Earth's outlines, fetched as a file of their own.
    expect(calls.map((call) => call.path)).toEqual(['/app-config.json', countriesUrl]);
    await waitFor(() => expect(map).toHaveTextContent('Natural Earth'));
  });

  it('clusters sessions at one place into a single marker that says how many', async () => {
    mockMapFiles();
    const { container } = renderMap([makeSession(dee, { id: 's4', ...linkoping }), makeSession(hal, { id: 's5', ...linkoping }), milton]);

    const cluster = await screen.findByRole('button', { name: '2 sessions here' });
    expect(cluster).toHaveTextContent('2');
    expect(markers(container)).toHaveLength(2);
    expect(screen.getByRole('button', { name: 'Dee Dee, Milton, United States' })).toBeInTheDocument();
  });

  it('tells a session in its popup: user, city, country, browser and system, started, last seen and flags', async () => {
    mockMapFiles();
    renderMap([{ ...london, flags: ['new_country'] }]);

    // The keyboard's way in: a marker takes the focus, and Enter opens its popup (Leaflet reads
    // the keyCode, which user-event leaves at 0).
    const marker = await screen.findByRole('button', { name: 'Hal Jordan, London, United Kingdom' });
    expect(marker).toHaveAttribute('tabindex', '0');
    fireEvent.keyPress(marker, { key: 'Enter', code: 'Enter', keyCode: 13, charCode: 13 });
    const details = await screen.findByTestId('session-details');
    expect(details).toHaveTextContent('Hal Jordan');
    expect(details).toHaveTextContent('hal@acme.test');
    expect(details).toHaveTextContent('CityLondon');
    expect(details).toHaveTextContent('CountryUnited Kingdom');
    expect(details).toHaveTextContent('Browser and systemFirefox 128.0 on Linux');
    expect(details).toHaveTextContent('StartedMar 1, 2026');
    expect(details).toHaveTextContent('Last seenMar 1, 2026');
    expect(within(details).getByTestId('session-flag')).toHaveTextContent('New country');
    expect(screen.getByRole('button', { name: 'Close the details' })).toBeInTheDocument();
  });

  it('puts the configured tile server above the outlines, with its attribution', async () => {
    mockApi({
      'GET /app-config.json': jsonResponse(200, { mapTileUrl: '/tiles/{z}/{x}/{y}.png', mapAttribution: '© Example tiles' }),
      [`GET ${countriesUrl}`]: jsonResponse(200, emptyTopology),
      'GET /tiles/2/0/1.png': new Response(null, { status: 404 }),
    });
    const { container } = renderMap([london]);

    const map = await screen.findByRole('region', { name: 'Map of the sessions' });
    await waitFor(() => expect(map).toHaveTextContent('© Example tiles'));
    await waitFor(() => expect(container.querySelector('.leaflet-tile-pane .leaflet-layer')).not.toBeNull());
  });

  it('draws without a tile server when the configuration cannot be had', async () => {
    mockMapFiles(new Response('<html>', { status: 502 }));
    const { container } = renderMap([london]);

    await waitFor(() => expect(markers(container)).toHaveLength(1));
    expect(container.querySelector('.leaflet-tile-pane .leaflet-layer')).toBeNull();
  });

  it('says it is loading, over the map, until the outlines are drawn', async () => {
    let deliver: (response: Response) => void = () => {};
    mockApi({
      'GET /app-config.json': jsonResponse(200, { mapTileUrl: null, mapAttribution: null }),
      [`GET ${countriesUrl}`]: () => new Promise<Response>((resolve) => (deliver = resolve)),
    });
    renderMap([london]);

    expect(await screen.findByRole('status')).toHaveTextContent('Loading the map…');
    await screen.findByRole('region', { name: 'Map of the sessions' });
    expect(screen.getByRole('status')).toHaveTextContent('Loading the map…');
    deliver(jsonResponse(200, emptyTopology));
    await waitFor(() => expect(screen.queryByRole('status')).not.toBeInTheDocument());
    // The outlines' credit is drawn in the layer's own render, which can follow the status's
    // removal by a frame on a loaded machine: waited for, not assumed.
    await waitFor(() => expect(screen.getByRole('region', { name: 'Map of the sessions' })).toHaveTextContent('Natural Earth'));
  });

  it('fits one place at a regional view, not closer: the outlines are coarse', async () => {
    mockMapFiles();
    renderMap([london]);

    const map = await screen.findByRole('region', { name: 'Map of the sessions' });
    await waitFor(() => expect(map).toHaveAttribute('data-zoom', String(FIT_MAX_ZOOM_OUTLINES)));
    expect(FIT_MAX_ZOOM_OUTLINES).toBeLessThanOrEqual(5);
  });

  it('shows the whole world when there is nothing to show', async () => {
    mockMapFiles();
    const { container } = renderMap([nowhere]);

    expect(await screen.findByRole('region', { name: 'Map of the sessions' })).toBeInTheDocument();
    await act(async () => {});
    expect(markers(container)).toHaveLength(0);
  });
});
