/// <reference types="vitest/config" />
import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  build: {
    // dist/.vite/manifest.json: the chunk graph that scripts/bundle-budget.mjs follows.
    manifest: true,
  },
  server: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:8080', changeOrigin: true, ws: true },
    },
  },
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/testing/setup.ts'],
    css: false,
    restoreMocks: true,
    unstubGlobals: true,
    // Screen tests click through real Mantine menus and modals; on 2 busy CI cores one can take
    // several seconds, which is not a failure of the behaviour under test.
    testTimeout: 15000,
  },
});
