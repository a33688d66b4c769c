import type { FeatureCollection } from 'geojson';
import type { Session } from '@/api/generated/model';

/** A session with a known point (GeoIP finds none for private and loopback addresses). */
export type PlacedSession = Session & { latitude: number; longitude: number };

const isCoordinate = (value: number | null | undefined, limit: number): value is number =>
  typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= limit;

export function isPlaced(session: Session): session is PlacedSession {
  return isCoordinate(session.latitude, 90) && isCoordinate(session.longitude, 180);
}

export type Bounds = [[number, number], [number, number]];

/** The south-west and north-east corners around every point; null without points. */
export function boundsOf(sessions: readonly PlacedSession[]): Bounds | null {
  if (sessions.length === 0) return null;
  const lats = sessions.map((s) => s.latitude);
  const lngs = sessions.map((s) => s.longitude);
  return [
    [Math.min(...lats), Math.min(...lngs)],
    [Math.max(...lats), Math.max(...lngs)],
  ];
}

/** The distinct places, as one string: the map fits its view again only when this changes. */
export function placesKey(sessions: readonly PlacedSession[]): string {
  return [...new Set(sessions.map((s) => `${s.latitude.toFixed(4)},${s.longitude.toFixed(4)}`))].sort().join(';');
}

/** Colour of a marker: a flagged session stands out; an ended one is grey. */
export function markerKind(session: Session): 'flagged' | 'active' | 'ended' {
  if (session.flags.length > 0) return 'flagged';
  return session.active ? 'active' : 'ended';
}

type Position = number[];

/**
 * A ring of Natural Earth's outlines drawn on a flat map without lines across it. The outlines
 * are spherical: Russia and Fiji cross the antimeridian (a jump from 180° to -180°), which a
 * flat map draws as a band across the world. A ring that crosses and comes back is unwrapped
 * (it reaches past 180°); a ring that crosses once goes round a pole (Antarctica) and is closed
 * along that pole.
 */
export function flattenRing(ring: readonly Position[]): Position[] {
  const jumps: number[] = [];
  for (let i = 1; i < ring.length; i += 1) if (Math.abs(ring[i][0] - ring[i - 1][0]) > 180) jumps.push(i);
  if (jumps.length === 0) return [...ring];
  if (jumps.length % 2 === 1) {
    const at = jumps[0];
    const [before, after] = [ring[at - 1], ring[at]];
    const pole = before[1] < 0 ? -90 : 90;
    const edge = before[0] > 0 ? 180 : -180;
    return [...ring.slice(0, at), [edge, before[1]], [edge, pole], [-edge, pole], [-edge, after[1]], ...ring.slice(at)];
  }
  let shift = 0;
  return ring.map((point, i) => {
    if (i > 0) {
      const step = point[0] - ring[i - 1][0];
      if (step > 180) shift -= 360;
      else if (step < -180) shift += 360;
    }
    return [point[0] + shift, ...point.slice(1)];
  });
}

/** Every polygon of the outlines, flattened (`flattenRing`). */
export function flattenOutlines<T extends FeatureCollection>(collection: T): T {
  return {
    ...collection,
    features: collection.features.map((item) => {
      const { geometry } = item;
      if (geometry?.type === 'Polygon') return { ...item, geometry: { ...geometry, coordinates: geometry.coordinates.map(flattenRing) } };
      if (geometry?.type === 'MultiPolygon') {
        return { ...item, geometry: { ...geometry, coordinates: geometry.coordinates.map((polygon) => polygon.map(flattenRing)) } };
      }
      return item;
    }),
  };
}
