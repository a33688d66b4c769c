import 'leaflet/dist/leaflet.css';
import './session-map.css';
import { IconAlertTriangle } from '@tabler/icons-react';
import L from 'leaflet';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { GeoJSON, MapContainer, Marker, TileLayer, Tooltip, ZoomControl, useMap } from 'react-leaflet';
import type { MapPlace } from '@/api/generated/model';
import { type AppConfig, loadAppConfig } from '@/lib/app-config';
import type { PlaceFilter } from '../filters';
import { type LocatedPlace, WORLD_ZOOM, boundsOf, isLocated, markerKind, markerSize, placeAction } from '../map-data';
import { loadOutlines } from '../outlines';
import { useSessionFormat } from '../session-format';
import { MapLoading } from './MapLoading';

const WORLD_CENTER: [number, number] = [25, 10];
/** The 1:110m outlines say nothing closer in; tiles do. */
const MAX_ZOOM_OUTLINES = 8;
const MAX_ZOOM_TILES = 18;
/**
 * Fitting one place (or a few close together) stops at a regional view: closer in, the 1:110m
 * outlines turn to blocks. Tiles have the detail to come a little closer.
 */
export const FIT_MAX_ZOOM_OUTLINES = 4;
const FIT_MAX_ZOOM_TILES = 6;
/** A tile server that never answers does not keep the map "loading" for ever. */
const TILES_PATIENCE_MS = 10_000;

function useLoaded<T>(load: () => Promise<T>): T | undefined {
  const [value, setValue] = useState<T | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void load().then((result) => live && setValue(() => result));
    return () => {
      live = false;
    };
  }, [load]);
  return value;
}

const COUNTRY_STYLE: L.PathOptions = { color: '#868e96', weight: 0.6, fillColor: '#f8f9fa', fillOpacity: 1 };

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

type SessionMapProps = {
  /** The sessions per place (`/monitoring/places`); a place without a point is not drawn. */
  places: readonly MapPlace[];
  /** The map's accessible name. */
  label: string;
  /** The id of the text that says where the same sessions are listed. */
  describedBy?: string;
  /** The view fits the places each time this changes (the filters); undefined while they load. */
  fitKey?: string;
  /** The map's zoom level, at first and after each zoom. */
  onZoomChange?: (zoom: number) => void;
  /** A marker of one place was opened: list its sessions. */
  onOpenPlace?: (place: LocatedPlace, filter: PlaceFilter) => void;
};

/**
 * The sessions on a world map, counted per place: one marker per city (or per cell of a grid
 * that follows the zoom), sized by how many sessions it holds, red with the number flagged when
 * some are. Opening a marker lists its sessions (`onOpenPlace`), or zooms in on a cell of
 * several cities. The view fits the places when the filters change (the world without).
 */
export default function SessionMap(props: SessionMapProps) {
  const config = useLoaded(loadAppConfig);
  // The zoom range depends on the tiles: draw once the configuration is known.
  if (!config) return <MapLoading />;
  return <LoadedMap {...props} config={config} />;
}

function LoadedMap({ places, label, describedBy, fitKey, onZoomChange, onOpenPlace, config }: SessionMapProps & { config: AppConfig }) {
  const { t, i18n } = useTranslation();
  const outlines = useLoaded(loadOutlines);
  const tiles = useTilesReady(Boolean(config.mapTileUrl));
  // Drawn once the outlines are (or cannot be had) and the first tiles are in.
  const ready = outlines !== undefined && tiles.ready;
  const located = useMemo(() => places.filter(isLocated), [places]);
  const locale = i18n.resolvedLanguage ?? 'en';

  return (
    <div className="session-map-frame">
      <MapContainer
        className="session-map"
        center={WORLD_CENTER}
        zoom={WORLD_ZOOM}
        minZoom={1}
        maxZoom={config.mapTileUrl ? MAX_ZOOM_TILES : MAX_ZOOM_OUTLINES}
        zoomControl={false}
        worldCopyJump
        attributionControl
      >
        <Accessible label={label} describedBy={describedBy} onZoomChange={onZoomChange} />
        {/* Recreated on a language change: Leaflet reads these texts once. */}
        <ZoomControl key={`zoom-${locale}`} position="topleft" zoomInTitle={t('monitoring.map.zoomIn')} zoomOutTitle={t('monitoring.map.zoomOut')} />
        {outlines && <GeoJSON data={outlines} style={COUNTRY_STYLE} interactive={false} attribution="Natural Earth" />}
        {config.mapTileUrl && <TileLayer url={config.mapTileUrl} attribution={config.mapAttribution ?? undefined} eventHandlers={{ load: tiles.onLoad }} />}
        {located.map((place) => (
          <PlaceMarker key={`${place.latitude},${place.longitude},${place.city ?? ''},${place.country ?? ''}`} place={place} onOpen={onOpenPlace} />
        ))}
        <FitToPlaces places={located} fitKey={fitKey} maxZoom={config.mapTileUrl ? FIT_MAX_ZOOM_TILES : FIT_MAX_ZOOM_OUTLINES} />
      </MapContainer>
      {!ready && <MapLoading overlay />}
    </div>
  );
}

/** One place's marker: its count, its flagged count, and its name for screen readers and on hover. */
function PlaceMarker({ place, onOpen }: { place: LocatedPlace; onOpen?: (place: LocatedPlace, filter: PlaceFilter) => void }) {
  const map = useMap();
  const format = useSessionFormat();
  const kind = markerKind(place);
  const size = markerSize(place.total);
  const total = format.compact(place.total);
  const flagged = place.flagged > 0 ? format.compact(place.flagged) : null;
  const name = format.marker(place);
  const icon = useMemo(
    () =>
      L.divIcon({
        className: `session-map-marker session-map-marker--${kind}`,
        iconSize: [size, size],
        html:
          `<span aria-hidden="true">${escapeHtml(total)}</span>` +
          (flagged ? `<span aria-hidden="true" class="session-map-marker-flagged">${escapeHtml(flagged)}</span>` : '') +
          `<span class="session-map-visually-hidden">${escapeHtml(name)}</span>`,
      }),
    [kind, size, total, flagged, name],
  );

  const open = () => {
    const action = placeAction(place, map.getZoom(), map.getMaxZoom());
    if (!action) return;
    if ('zoomTo' in action) map.setView([place.latitude, place.longitude], action.zoomTo);
    else onOpen?.(place, action.list);
  };

  return (
    <Marker
      position={[place.latitude, place.longitude]}
      icon={icon}
      // A marker is a button: the keyboard opens it with Enter or Space (Leaflet reports the key as a keypress).
      eventHandlers={{
        click: open,
        keypress: (event: L.LeafletKeyboardEvent) => {
          if (event.originalEvent.key !== 'Enter' && event.originalEvent.key !== ' ') return;
          event.originalEvent.preventDefault();
          open();
        },
      }}
    >
      <Tooltip direction="top" offset={[0, -size / 2]}>
        {/* The flag badges' warning sign, where some of the place's sessions are flagged. */}
        {place.flagged > 0 && <IconAlertTriangle size={12} color="var(--mantine-color-red-7)" aria-hidden style={{ verticalAlign: -1, marginRight: 4 }} />}
        {format.mapPlace(place)}
      </Tooltip>
    </Marker>
  );
}

/** Whether the first tiles are in (at once without a tile server; at the latest after a while). */
function useTilesReady(withTiles: boolean) {
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    if (!withTiles) return;
    const timer = window.setTimeout(() => setLoaded(true), TILES_PATIENCE_MS);
    return () => window.clearTimeout(timer);
  }, [withTiles]);
  return { ready: !withTiles || loaded, onLoad: () => setLoaded(true) };
}

/**
 * Leaflet's container is the keyboard's way into the map (arrows pan, +/- zoom): give it a role,
 * a name and a pointer to the table, and keep its size right when the layout changes.
 */
function Accessible({ label, describedBy, onZoomChange }: { label: string; describedBy?: string; onZoomChange?: (zoom: number) => void }) {
  const map = useMap();
  const reportZoom = useRef(onZoomChange);
  useEffect(() => {
    reportZoom.current = onZoomChange;
  });
  useEffect(() => {
    const container = map.getContainer();
    container.setAttribute('role', 'region');
    container.setAttribute('aria-label', label);
    if (describedBy) container.setAttribute('aria-describedby', describedBy);
    else container.removeAttribute('aria-describedby');
  }, [map, label, describedBy]);
  // The zoom level, for the places' grouping and for the end-to-end tests (the outlines-only map
  // has no tiles to tell it).
  useEffect(() => {
    const container = map.getContainer();
    const show = () => {
      container.setAttribute('data-zoom', String(map.getZoom()));
      reportZoom.current?.(map.getZoom());
    };
    show();
    map.on('zoomend', show);
    return () => {
      map.off('zoomend', show);
    };
  }, [map]);
  useEffect(() => {
    const observer = new ResizeObserver(() => map.invalidateSize());
    observer.observe(map.getContainer());
    return () => observer.disconnect();
  }, [map]);
  return null;
}

/** Fits the view to the places each time `fitKey` changes (not on a refresh, nor after a zoom regroups them). */
function FitToPlaces({ places, fitKey, maxZoom }: { places: readonly LocatedPlace[]; fitKey?: string; maxZoom: number }) {
  const map = useMap();
  const fitted = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (fitKey === undefined || fitKey === fitted.current) return;
    fitted.current = fitKey;
    const bounds = boundsOf(places);
    if (bounds) map.fitBounds(bounds, { padding: [40, 40], maxZoom, animate: false });
    else map.setView(WORLD_CENTER, WORLD_ZOOM, { animate: false });
    // Only the key matters: `places` is new on every refresh.
  }, [map, fitKey]); // eslint-disable-line react-hooks/exhaustive-deps
  return null;
}
