import type { FeatureCollection } from 'geojson';
import type { MapPlace } from '@/api/generated/model';
import type { PlaceFilter } from './filters';

/** The most places `/monitoring/places` answers (the busiest): past it, some sessions are not on the map. */
export const MAX_PLACES = 5_000;

/** The world view, before the places are known (and without any). */
export const WORLD_ZOOM = 2;

/** A place of the map with a known point (GeoIP finds none for private and loopback addresses). */
export type LocatedPlace = MapPlace & { latitude: number; longitude: number };

const isCoordinate = (value: number | null | undefined, limit: number): value is number =>
  typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= limit;

export function isLocated(place: MapPlace): place is LocatedPlace {
  return isCoordinate(place.latitude, 90) && isCoordinate(place.longitude, 180);
}

/** What the map's answer adds up to: every session (the list's total for the same filters), the places drawn and the sessions without a place. */
export function placeTotals(places: readonly MapPlace[]): { sessions: number; places: number; unlocated: number; flagged: number } {
  let sessions = 0;
  let located = 0;
  let unlocated = 0;
  let flagged = 0;
  for (const place of places) {
    sessions += place.total;
    flagged += place.flagged;
    if (isLocated(place)) located += 1;
    else unlocated += place.total;
  }
  return { sessions, places: located, unlocated, flagged };
}

export type Bounds = [[number, number], [number, number]];

/** The south-west and north-east corners around every point; null without points. */
export function boundsOf(points: readonly { latitude: number; longitude: number }[]): Bounds | null {
  if (points.length === 0) return null;
  const lats = points.map((p) => p.latitude);
  const lngs = points.map((p) => p.longitude);
  return [
    [Math.min(...lats), Math.min(...lngs)],
    [Math.max(...lats), Math.max(...lngs)],
  ];
}

/** Colour of a marker: a place with a flagged session stands out; one with only ended sessions is grey. */
export function markerKind(place: MapPlace): 'flagged' | 'active' | 'ended' {
  if (place.flagged > 0) return 'flagged';
  return place.active > 0 ? 'active' : 'ended';
}

/** A marker's diameter in pixels: 24 for one session, 6 more for each tenfold, 48 at most. */
export function markerSize(total: number): number {
  return Math.min(48, 24 + Math.round(6 * Math.log10(Math.max(1, total))));
}

/** How many levels a click on a cell of several cities zooms in. */
export const ZOOM_STEP = 3;

/**
 * What opening a marker does: list its sessions when it is one city of one country; zoom in on
 * a cell of several cities so that they come apart; at the map's closest zoom, list what the
 * list can narrow to (the country's sessions with no known city); nothing for a cell without
 * city or country there.
 */
export function placeAction(place: LocatedPlace, zoom: number, maxZoom: number): { list: PlaceFilter } | { zoomTo: number } | null {
  if (place.city && place.country) return { list: { city: place.city, country: place.country } };
  if (zoom < maxZoom) return { zoomTo: Math.min(maxZoom, zoom + ZOOM_STEP) };
  if (place.city || place.country) return { list: { city: place.city ?? '', country: place.country ?? undefined } };
  return null;
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
