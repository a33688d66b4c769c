/**
 * Settings the server gives the app at run time (`GET /app-config.json`, outside the API: no
 * token needed). A failed or odd answer counts as "nothing configured": the app works without.
 */
export type AppConfig = {
  /** A map tile server (`https://tiles.example/{z}/{x}/{y}.png`); null draws the offline country outlines alone. */
  mapTileUrl: string | null;
  /** The tile server's attribution (HTML, as Leaflet shows it). */
  mapAttribution: string | null;
};

export const NO_APP_CONFIG: AppConfig = { mapTileUrl: null, mapAttribution: null };

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** Only http(s) or same-origin tile templates: anything else is treated as not configured. */
const tileUrl = (value: unknown): string | null => {
  const url = text(value);
  return url && /^(https?:\/\/|\/(?!\/))/i.test(url) ? url : null;
};

export function parseAppConfig(body: unknown): AppConfig {
  if (!body || typeof body !== 'object') return NO_APP_CONFIG;
  const { mapTileUrl, mapAttribution } = body as Record<string, unknown>;
  const url = tileUrl(mapTileUrl);
  return { mapTileUrl: url, mapAttribution: url ? text(mapAttribution) : null };
}

let loaded: Promise<AppConfig> | undefined;

/** The configuration, fetched once per page load (a failure is retried on the next call). */
export function loadAppConfig(): Promise<AppConfig> {
  loaded ??= fetch('/app-config.json', { headers: { Accept: 'application/json' } })
    .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`app-config.json: ${response.status}`))))
    .then(parseAppConfig)
    .catch(() => {
      loaded = undefined;
      return NO_APP_CONFIG;
    });
  return loaded;
}

/** Tests only: the next `loadAppConfig()` fetches again. */
export function forgetAppConfig(): void {
  loaded = undefined;
}
