import { MantineProvider } from '@mantine/core';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import countriesUrl from 'world-atlas/countries-110m.json?url';
import type { ComponentProps } from 'react';
import type { MapPlace } from '@/api/generated/model';
import '@/i18n/signed-in';
import { forgetAppConfig } from '@/lib/app-config';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse } from '@/testing/fixtures';
import { forgetOutlines } from '../outlines';
import SessionMap, { FIT_MAX_ZOOM_OUTLINES } from './SessionMap';

// jsdom lays nothing out: Leaflet reads the map's size from these.
beforeEach(() => {
  forgetAppConfig();
  forgetOutlines();
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(400);
});

const london: MapPlace = { city: 'London', country: 'GB', latitude: 51.5142, longitude: -0.0931, total: 1234, active: 1200, flagged: 3 };
const milton: MapPlace = { city: 'Milton', country: 'US', latitude: 47.2513, longitude: -122.3149, total: 1, active: 1, flagged: 0 };
/** A cell of the grid holding several cities of the United Kingdom. */
const england: MapPlace = { city: null, country: 'GB', latitude: 52.1, longitude: -1.2, total: 5, active: 5, flagged: 0 };
const unlocated: MapPlace = { city: null, country: null, latitude: null, longitude: null, total: 7, active: 7, flagged: 0 };

/** A world without countries: the outlines are not what these tests look at. */
const emptyTopology = { type: 'Topology', objects: { countries: { type: 'GeometryCollection', geometries: [] } }, arcs: [] };

function mockMapFiles(config: unknown = { mapTileUrl: null, mapAttribution: null }) {
  return mockApi({
    'GET /app-config.json': config instanceof Response ? config : jsonResponse(200, config),
    [`GET ${countriesUrl}`]: jsonResponse(200, emptyTopology),
  });
}

function renderMap(places: MapPlace[], props: Partial<ComponentProps<typeof SessionMap>> = {}) {
  return render(
    <MantineProvider>
      <SessionMap places={places} label="Map of the sessions" describedBy="hint" fitKey="filters" {...props} />
    </MantineProvider>,
  );
}

const markers = (container: HTMLElement) => [...container.querySelectorAll<HTMLElement>('.leaflet-marker-icon')];

describe('the session map', () => {
  it('draws one marker per place with a point, showing its count and flagged count, named with both, and fits the view to them', async () => {
    const { calls } = mockMapFiles();
    const { container } = renderMap([london, milton, unlocated]);

    const map = await screen.findByRole('region', { name: 'Map of the sessions' });
    expect(map).toHaveAttribute('aria-describedby', 'hint');
    await waitFor(() => expect(markers(container)).toHaveLength(2));
    const inLondon = screen.getByRole('button', { name: 'London, United Kingdom: 1,234 sessions, 3 flagged' });
    expect(inLondon).toHaveTextContent(/^1\.2K3/);
    expect(inLondon).toHaveClass('session-map-marker--flagged');
    expect(inLondon.style.width).toBe('43px');
    const inMilton = screen.getByRole('button', { name: 'Milton, United States: 1 session' });
    expect(inMilton).toHaveClass('session-map-marker--active');
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

  it("opens a city's sessions from its marker with the keyboard, and zooms in on a cell of several cities instead", async () => {
    mockMapFiles();
    const onOpenPlace = vi.fn();
    const onZoomChange = vi.fn();
    renderMap([london, england], { onOpenPlace, onZoomChange });

    // The keyboard's way in: a marker takes the focus, and Enter opens it (Leaflet reads the
    // keyCode, which user-event leaves at 0).
    const marker = await screen.findByRole('button', { name: 'London, United Kingdom: 1,234 sessions, 3 flagged' });
    expect(marker).toHaveAttribute('tabindex', '0');
    fireEvent.keyPress(marker, { key: 'Enter', code: 'Enter', keyCode: 13, charCode: 13 });
    expect(onOpenPlace).toHaveBeenCalledExactlyOnceWith(london, { city: 'London', country: 'GB' });

    const map = screen.getByRole('region', { name: 'Map of the sessions' });
    const zoom = Number(map.getAttribute('data-zoom'));
    expect(onZoomChange).toHaveBeenLastCalledWith(zoom);
    fireEvent.keyPress(screen.getByRole('button', { name: 'United Kingdom, several places: 5 sessions' }), { key: 'Enter', keyCode: 13, charCode: 13 });
    await waitFor(() => expect(map).toHaveAttribute('data-zoom', String(Math.min(8, zoom + 3))));
    expect(onZoomChange).toHaveBeenLastCalledWith(Math.min(8, zoom + 3));
    expect(onOpenPlace).toHaveBeenCalledTimes(1);
  });

  it('fits the view again when the filters change, not when the same filters bring other places (a zoom, a refresh)', async () => {
    mockMapFiles();
    const { rerender } = renderMap([milton]);
    const map = await screen.findByRole('region', { name: 'Map of the sessions' });
    await waitFor(() => expect(map).toHaveAttribute('data-zoom', String(FIT_MAX_ZOOM_OUTLINES)));

    const again = (places: MapPlace[], fitKey: string | undefined) =>
      rerender(
        <MantineProvider>
          <SessionMap places={places} label="Map of the sessions" fitKey={fitKey} />
        </MantineProvider>,
      );
    again([milton, london], 'filters');
    await act(async () => {});
    expect(map).toHaveAttribute('data-zoom', String(FIT_MAX_ZOOM_OUTLINES));
    // New filters: nothing while their places load, then the view fits both.
    again([milton], undefined);
    await act(async () => {});
    expect(map).toHaveAttribute('data-zoom', String(FIT_MAX_ZOOM_OUTLINES));
    again([milton, london], 'other filters');
    await waitFor(() => expect(Number(map.getAttribute('data-zoom'))).toBeLessThan(FIT_MAX_ZOOM_OUTLINES));
  });

  it('puts the configured tile server above the outlines, with its attribution', async () => {
    mockApi({
      'GET /app-config.json': jsonResponse(200, { mapTileUrl: '/tiles/{z}/{x}/{y}.png', mapAttribution: '© Example tiles' }),
      [`GET ${countriesUrl}`]: jsonResponse(200, emptyTopology),
      'GET /tiles/2/0/1.png': new Response(null, { status: 404 }),
    });
    const { container } = renderMap([milton]);

    const map = await screen.findByRole('region', { name: 'Map of the sessions' });
    await waitFor(() => expect(map).toHaveTextContent('© Example tiles'));
    await waitFor(() => expect(container.querySelector('.leaflet-tile-pane .leaflet-layer')).not.toBeNull());
  });

  it('draws without a tile server when the configuration cannot be had', async () => {
    mockMapFiles(new Response('<html>', { status: 502 }));
    const { container } = renderMap([milton]);

    await waitFor(() => expect(markers(container)).toHaveLength(1));
    expect(container.querySelector('.leaflet-tile-pane .leaflet-layer')).toBeNull();
  });

  it('says it is loading, over the map, until the outlines are drawn', async () => {
    let deliver: (response: Response) => void = () => {};
    mockApi({
      'GET /app-config.json': jsonResponse(200, { mapTileUrl: null, mapAttribution: null }),
      [`GET ${countriesUrl}`]: () => new Promise<Response>((resolve) => (deliver = resolve)),
    });
    renderMap([milton]);

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
    renderMap([milton]);

    const map = await screen.findByRole('region', { name: 'Map of the sessions' });
    await waitFor(() => expect(map).toHaveAttribute('data-zoom', String(FIT_MAX_ZOOM_OUTLINES)));
    expect(FIT_MAX_ZOOM_OUTLINES).toBeLessThanOrEqual(5);
  });

  it('shows the whole world when there is nothing to show', async () => {
    mockMapFiles();
    const { container } = renderMap([unlocated]);

    expect(await screen.findByRole('region', { name: 'Map of the sessions' })).toBeInTheDocument();
    await act(async () => {});
    expect(markers(container)).toHaveLength(0);
  });
});
