/// <reference types="vitest/config" />
import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import { type Plugin, defineConfig } from 'vite';
import { ISOLATED_TESTS } from './src/testing/isolated-tests';

/**
 * Glide Data Grid (the spreadsheet's grid) loads its cell editor with React.lazy: the keys typed
 * while the first edit waits for it are lost (type "Month" into a new sheet, get "h"). This loads
 * the editor with the grid instead, at build time and in the dev server's pre-bundling, and stops
 * the build if a new version of the grid no longer has the lazy editor where it is expected.
 */
function eagerGlideCellEditor(): Plugin {
  const file = '@glideapps/glide-data-grid/dist/esm/data-editor/data-editor.js';
  const editor = '../internal/data-grid-overlay-editor/data-grid-overlay-editor.js';
  const lazy = `React.lazy(async () => await import("${editor}"))`;
  return {
    name: 'eager-glide-cell-editor',
    transform(code, id) {
      if (!id.replaceAll('\\', '/').split('?')[0].endsWith(file)) return null;
      if (!code.includes(lazy)) throw new Error(`eager-glide-cell-editor: ${file} no longer loads its cell editor as expected; check the quirk again`);
      return { code: `import GlideCellEditor from "${editor}";\n${code.replace(lazy, 'GlideCellEditor')}`, map: null };
    },
  };
}

// The tests that run on Node itself (the projects at the end of `test.projects`).
const node = ['src/lib/crypto/**', 'src/features/messages/engine/**', 'src/features/spreadsheets/engine/**'];
const dom = {
  include: ['src/**/*.test.{ts,tsx}'],
  environment: 'jsdom',
  setupFiles: ['./src/testing/setup.ts'],
  // The grid as the app bundles it: through Vite, so with its cell editor loaded eagerly
  // (eagerGlideCellEditor above; Node's own loading keeps the lazy one).
  server: { deps: { inline: ['@glideapps/glide-data-grid'] } },
};

export default defineConfig({
  plugins: [react(), eagerGlideCellEditor()],
  optimizeDeps: { rolldownOptions: { plugins: [eagerGlideCellEditor()] } },
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  build: {
    // dist/.vite/manifest.json: the chunk graph that scripts/bundle-budget.mjs follows.
    manifest: true,
    modulePreload: {
      // The sign-in's later steps (second step, passkey sign-in: src/features/auth/sign-in-steps.ts):
      // their chunks load as they are imported, which starts as the password is sent or the
      // passkey button used, instead of being listed in the sign-in page's own scripts (its
      // 150 kB budget, scripts/bundle-budget.mjs).
      resolveDependencies: (filename, deps) => (filename.includes('sign-in-steps') ? [] : deps),
    },
  },
  server: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:8080', changeOrigin: true, ws: true },
    },
  },
  test: {
    globals: true,
    css: false,
    restoreMocks: true,
    unstubGlobals: true,
    // Screen tests click through real Mantine menus and modals; on 2 CI cores busy with the API
    // tests beside them, one long form took 15.3 s once, which is not a failure of the behaviour
    // under test.
    testTimeout: 30000,
    projects: [
      // Screens in jsdom, sharing one module graph per worker: jsdom and the app load once, not
      // once per file (src/testing/isolated-tests.ts says which files cannot share, and why).
      {
        extends: true,
        test: { ...dom, name: 'dom', exclude: [...node, ...ISOLATED_TESTS], isolate: false },
      },
      { extends: true, test: { ...dom, name: 'dom-isolated', include: ISOLATED_TESTS } },
      // The messenger's cryptography runs on Node's own WebCrypto: jsdom's typed arrays come from
      // another realm, which WebCrypto refuses.
      // The messenger's engine too: its tests run it on the real cryptography against an in-memory server.
      { extends: true, test: { name: 'crypto', include: ['src/lib/crypto/**/*.test.ts', 'src/features/messages/engine/**/*.test.ts'], environment: 'node' } },
      // The spreadsheet engine (IronCalc's WebAssembly, read from disk) and its helpers, on Node.
      { extends: true, test: { name: 'spreadsheet-engine', include: ['src/features/spreadsheets/engine/**/*.test.ts'], environment: 'node' } },
    ],
  },
});
