import type { FeatureCollection } from 'geojson';
import { describe, expect, it } from 'vitest';
import type { MapPlace } from '@/api/generated/model';
import { type LocatedPlace, boundsOf, flattenOutlines, flattenRing, isLocated, markerKind, markerSize, placeAction, placeTotals } from './map-data';

const london: MapPlace = { city: 'London', country: 'GB', latitude: 51.5142, longitude: -0.0931, total: 12, active: 10, flagged: 2 };
const milton: MapPlace = { city: 'Milton', country: 'US', latitude: 47.2513, longitude: -122.3149, total: 1, active: 1, flagged: 0 };
const unlocated: MapPlace = { city: null, country: null, latitude: null, longitude: null, total: 3, active: 3, flagged: 0 };
const located = (place: MapPlace) => place as LocatedPlace;

describe('the map data', () => {
  it('draws only places with a point', () => {
    expect([london, milton, unlocated, { ...milton, latitude: 91 }].filter(isLocated)).toEqual([london, milton]);
  });

  it("adds up every group, the unlocated one included, so that the map's total is the list's", () => {
    expect(placeTotals([london, milton, unlocated])).toEqual({ sessions: 16, places: 2, unlocated: 3, flagged: 2 });
    expect(placeTotals([])).toEqual({ sessions: 0, places: 0, unlocated: 0, flagged: 0 });
  });

  it('fits the corners around every point, and has none without points', () => {
    expect(boundsOf([london, milton].filter(isLocated))).toEqual([
      [47.2513, -122.3149],
      [51.5142, -0.0931],
    ]);
    expect(boundsOf([])).toBeNull();
  });

  it('marks places with flagged sessions, and those with only ended ones in grey', () => {
    expect(markerKind(milton)).toBe('active');
    expect(markerKind(london)).toBe('flagged');
    expect(markerKind({ ...milton, active: 0 })).toBe('ended');
  });

  it('sizes a marker by its count: 24 px for one, 6 more per tenfold, 48 at most', () => {
    expect([1, 10, 100, 1000, 10_000, 1_000_000].map(markerSize)).toEqual([24, 30, 36, 42, 48, 48]);
  });

  it('lists a city, zooms in on a cell of several cities, and at the closest zoom lists what the list can narrow to', () => {
    expect(placeAction(located(london), 2, 8)).toEqual({ list: { city: 'London', country: 'GB' } });
    const severalCities = located({ ...london, city: null });
    expect(placeAction(severalCities, 2, 8)).toEqual({ zoomTo: 5 });
    expect(placeAction(severalCities, 7, 8)).toEqual({ zoomTo: 8 });
    expect(placeAction(severalCities, 8, 8)).toEqual({ list: { city: '', country: 'GB' } });
    expect(placeAction(located({ ...london, city: null, country: null }), 8, 8)).toBeNull();
  });
});

describe('the outlines on a flat map', () => {
  it('unwraps a ring that crosses the antimeridian and comes back, so no band crosses the world', () => {
    const chukotka = [
      [178, 65],
      [-179, 66],
      [-175, 67],
      [179, 68],
      [178, 65],
    ];
    expect(flattenRing(chukotka)).toEqual([
      [178, 65],
      [181, 66],
      [185, 67],
      [179, 68],
      [178, 65],
    ]);
  });

  it('closes a ring round the south pole along the pole (Antarctica)', () => {
    const antarctica = [
      [-170, -78],
      [0, -70],
      [170, -78],
      [-170, -78],
    ];
    expect(flattenRing(antarctica)).toEqual([
      [-170, -78],
      [0, -70],
      [170, -78],
      [180, -78],
      [180, -90],
      [-180, -90],
      [-180, -78],
      [-170, -78],
    ]);
  });

  it('leaves ordinary rings alone, in polygons and multipolygons', () => {
    const square = [
      [0, 0],
      [1, 0],
      [1, 1],
      [0, 0],
    ];
    const collection: FeatureCollection = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [square] } },
        { type: 'Feature', properties: {}, geometry: { type: 'MultiPolygon', coordinates: [[square], [square]] } },
      ],
    };
    expect(flattenOutlines(collection)).toEqual(collection);
  });
});
