import type { FeatureCollection } from 'geojson';
import { describe, expect, it } from 'vitest';
import { makeSession, makeUser, summaryOf } from '@/testing/fixtures';
import { boundsOf, flattenOutlines, flattenRing, isPlaced, markerKind, placesKey } from './map-data';

const user = summaryOf(makeUser('DepartmentUser'));
const london = makeSession(user, { id: 'a' });
const milton = makeSession(user, { id: 'b', city: 'Milton', country: 'US', latitude: 47.2513, longitude: -122.3149 });
const nowhere = makeSession(user, { id: 'c', latitude: null, longitude: null });

describe('the map data', () => {
  it('puts only sessions with a point on the map', () => {
    expect([london, milton, nowhere, makeSession(user, { latitude: 91, longitude: 0 })].filter(isPlaced).map((s) => s.id)).toEqual(['a', 'b']);
  });

  it('fits the corners around every point, and has none without points', () => {
    const placed = [london, milton].filter(isPlaced);
    expect(boundsOf(placed)).toEqual([
      [47.2513, -122.3149],
      [51.5142, -0.0931],
    ]);
    expect(boundsOf([])).toBeNull();
  });

  it('refits only when the places change, not when the same places come back in another order', () => {
    const placed = [london, milton].filter(isPlaced);
    expect(placesKey(placed)).toBe(placesKey([...placed].reverse()));
    expect(placesKey(placed)).not.toBe(placesKey(placed.slice(0, 1)));
  });

  it('marks flagged sessions, and ended ones in grey', () => {
    expect(markerKind(london)).toBe('active');
    expect(markerKind({ ...london, flags: ['new_country'] })).toBe('flagged');
    expect(markerKind({ ...london, active: false })).toBe('ended');
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
