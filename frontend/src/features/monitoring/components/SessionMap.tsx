/// <reference types="leaflet.markercluster" />
import 'leaflet/dist/leaflet.css';
import 'leaflet.markercluster/dist/MarkerCluster.css';
import './session-map.css';
import L, { type MarkerCluster } from 'leaflet';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { GeoJSON, MapContainer, Marker, Popup, TileLayer, ZoomControl, useMap } from 'react-leaflet';
import MarkerClusterGroup from 'react-leaflet-cluster';
import type { Session } from '@/api/generated/model';
import { type AppConfig, loadAppConfig } from '@/lib/app-config';
import { type PlacedSession, boundsOf, isPlaced, markerKind, placesKey } from '../map-data';
import { loadOutlines } from '../outlines';
import { useSessionFormat } from '../session-format';
import { MapLoading } from './MapLoading';
import { SessionDetails } from './SessionDetails';

const WORLD_CENTER: [number, number] = [25, 10];
const WORLD_ZOOM = 2;
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

const markerIcons = {
  active: L.divIcon({ className: 'session-map-marker session-map-marker--active', iconSize: [16, 16], popupAnchor: [0, -8] }),
  flagged: L.divIcon({ className: 'session-map-marker session-map-marker--flagged', iconSize: [18, 18], popupAnchor: [0, -9] }),
  ended: L.divIcon({ className: 'session-map-marker session-map-marker--ended', iconSize: [14, 14], popupAnchor: [0, -7] }),
};

type SessionMapProps = {
  sessions: readonly Session[];
  /** The map's accessible name. */
  label: string;
  /** The id of the text that says where the same sessions are listed. */
  describedBy?: string;
};

/**
 * The sessions on a world map: one marker per session at its GeoIP place, clustered where they
 * are close; a marker's popup tells the session. The view fits the markers (the world without).
 */
export default function SessionMap({ sessions, label, describedBy }: SessionMapProps) {
  const config = useLoaded(loadAppConfig);
  // The cluster layer reads the map's zoom range when added: draw once the configuration is known.
  if (!config) return <MapLoading />;
  return <LoadedMap sessions={sessions} label={label} describedBy={describedBy} config={config} />;
}

function LoadedMap({ sessions, label, describedBy, config }: SessionMapProps & { config: AppConfig }) {
  const { t, i18n } = useTranslation();
  const outlines = useLoaded(loadOutlines);
  const tiles = useTilesReady(Boolean(config.mapTileUrl));
  // Drawn once the outlines are (or cannot be had) and the first tiles are in.
  const ready = outlines !== undefined && tiles.ready;
  const placed = useMemo(() => sessions.filter(isPlaced), [sessions]);
  const locale = i18n.resolvedLanguage ?? 'en';
  const format = useSessionFormat();

  const clusterIcon = (cluster: MarkerCluster) => {
    const children = cluster.getAllChildMarkers();
    const count = children.length;
    const flagged = children.some((marker) => marker.options.icon === markerIcons.flagged);
    const size = count < 10 ? 34 : count < 100 ? 40 : 48;
    return L.divIcon({
      className: `session-map-cluster${flagged ? ' session-map-cluster--flagged' : ''}`,
      iconSize: [size, size],
      html: `<span aria-hidden="true">${count}</span><span class="session-map-visually-hidden">${escapeHtml(t('monitoring.map.cluster', { count }))}</span>`,
    });
  };

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
        <Accessible label={label} describedBy={describedBy} />
        {/* Recreated on a language change: Leaflet reads these texts once. */}
        <ZoomControl key={`zoom-${locale}`} position="topleft" zoomInTitle={t('monitoring.map.zoomIn')} zoomOutTitle={t('monitoring.map.zoomOut')} />
        {outlines && <GeoJSON data={outlines} style={COUNTRY_STYLE} interactive={false} attribution="Natural Earth" />}
        {config.mapTileUrl && <TileLayer url={config.mapTileUrl} attribution={config.mapAttribution ?? undefined} eventHandlers={{ load: tiles.onLoad }} />}
        <MarkerClusterGroup key={`clusters-${locale}`} iconCreateFunction={clusterIcon} showCoverageOnHover={false} spiderfyOnMaxZoom chunkedLoading>
          {placed.map((session) => (
            <Marker
              key={session.id}
              position={[session.latitude, session.longitude]}
              icon={markerIcons[markerKind(session)]}
              title={t('monitoring.map.marker', { name: session.user.fullName, place: format.place(session) })}
            >
              <Popup eventHandlers={{ add: (event) => nameCloseButton(event.target as L.Popup, t('monitoring.map.closePopup')) }}>
                <SessionDetails session={session} />
              </Popup>
            </Marker>
          ))}
        </MarkerClusterGroup>
        <FitToMarkers sessions={placed} maxZoom={config.mapTileUrl ? FIT_MAX_ZOOM_TILES : FIT_MAX_ZOOM_OUTLINES} />
      </MapContainer>
      {!ready && <MapLoading overlay />}
    </div>
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

/** Leaflet names its popups' close button in English ("Close popup"). */
function nameCloseButton(popup: L.Popup, label: string) {
  popup.getElement()?.querySelector('.leaflet-popup-close-button')?.setAttribute('aria-label', label);
}

/**
 * Leaflet's container is the keyboard's way into the map (arrows pan, +/- zoom): give it a role,
 * a name and a pointer to the table, and keep its size right when the layout changes.
 */
function Accessible({ label, describedBy }: { label: string; describedBy?: string }) {
  const map = useMap();
  useEffect(() => {
    const container = map.getContainer();
    container.setAttribute('role', 'region');
    container.setAttribute('aria-label', label);
    if (describedBy) container.setAttribute('aria-describedby', describedBy);
    else container.removeAttribute('aria-describedby');
  }, [map, label, describedBy]);
  // The zoom level, for the end-to-end tests (the outlines-only map has no tiles to tell it).
  useEffect(() => {
    const container = map.getContainer();
    const show = () => container.setAttribute('data-zoom', String(map.getZoom()));
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

/** Fits the view to the markers when the set of places changes (not on every refresh). */
function FitToMarkers({ sessions, maxZoom }: { sessions: readonly PlacedSession[]; maxZoom: number }) {
  const map = useMap();
  const key = placesKey(sessions);
  useEffect(() => {
    const bounds = boundsOf(sessions);
    if (bounds) map.fitBounds(bounds, { padding: [40, 40], maxZoom, animate: false });
    else map.setView(WORLD_CENTER, WORLD_ZOOM, { animate: false });
    // Only the places matter: `sessions` is new on every refresh.
  }, [map, key]); // eslint-disable-line react-hooks/exhaustive-deps
  return null;
}
