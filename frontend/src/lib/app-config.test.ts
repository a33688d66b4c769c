import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '@/testing/fixtures';
import { NO_APP_CONFIG, forgetAppConfig, loadAppConfig, parseAppConfig } from './app-config';

describe('the run-time configuration', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    forgetAppConfig();
  });

  it('takes a tile server and its attribution', () => {
    expect(parseAppConfig({ mapTileUrl: 'https://tiles.example/{z}/{x}/{y}.png', mapAttribution: '© Tiles' })).toEqual({
      mapTileUrl: 'https://tiles.example/{z}/{x}/{y}.png',
      mapAttribution: '© Tiles',
    });
    expect(parseAppConfig({ mapTileUrl: '/tiles/{z}/{x}/{y}.png', mapAttribution: null }).mapTileUrl).toBe('/tiles/{z}/{x}/{y}.png');
  });

  it.each([null, 'text', {}, { mapTileUrl: null }, { mapTileUrl: 'javascript:alert(1)' }, { mapTileUrl: '//evil.example/{z}' }, { mapTileUrl: 42 }])(
    'treats %j as no tile server',
    (body) => {
      expect(parseAppConfig(body)).toEqual(NO_APP_CONFIG);
    },
  );

  it('treats a failed fetch as nothing configured, and asks again next time', async () => {
    const fetchMock = vi
      .fn()
      .mockRejectedValueOnce(new TypeError('offline'))
      .mockResolvedValueOnce(jsonResponse(200, { mapTileUrl: '/t/{z}/{x}/{y}.png' }));
    vi.stubGlobal('fetch', fetchMock);
    expect(await loadAppConfig()).toEqual(NO_APP_CONFIG);
    expect((await loadAppConfig()).mapTileUrl).toBe('/t/{z}/{x}/{y}.png');
    expect(await loadAppConfig()).toEqual({ mapTileUrl: '/t/{z}/{x}/{y}.png', mapAttribution: null });
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(fetchMock).toHaveBeenCalledWith('/app-config.json', expect.anything());
  });
});
