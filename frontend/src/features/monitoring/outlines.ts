import type { FeatureCollection } from 'geojson';
import { feature } from 'topojson-client';
import type { Topology } from 'topojson-specification';
// Natural Earth's country outlines (1:110m, ~40 kB gzip), a file of its own fetched with the
// map: the base layer needs no tile server, so the map works offline and under `connect-src 'self'`.
import countriesUrl from 'world-atlas/countries-110m.json?url';
import { flattenOutlines } from './map-data';

let outlines: Promise<FeatureCollection | null> | undefined;

/** The outlines, fetched once per page load; null when they cannot be had (the markers still show). */
export function loadOutlines(): Promise<FeatureCollection | null> {
  outlines ??= fetch(countriesUrl)
    .then((response) => (response.ok ? (response.json() as Promise<Topology>) : Promise.reject(new Error(`${countriesUrl}: ${response.status}`))))
    .then((topology) => flattenOutlines(feature(topology, topology.objects.countries) as FeatureCollection))
    .catch(() => {
      outlines = undefined;
      return null;
    });
  return outlines;
}

/** Tests only: the next `loadOutlines()` fetches again. */
export function forgetOutlines(): void {
  outlines = undefined;
}
