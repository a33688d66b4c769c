import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const features = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/**
 * Import boundaries (bulletproof-react): a feature may use shared code but not another feature;
 * shared code (components, lib, api, i18n, testing) may use neither a feature nor the app; a
 * feature may not use the app (routes, layout, providers). Imports are resolved through the
 * tsconfig, so `@/features/...` and `../../features/...` are caught alike.
 */
const featureBoundaries = features.map((feature) => ({
  target: `./src/features/${feature}`,
  from: './src/features',
  except: [`./${feature}`],
  message: 'A feature must not import another feature: move what both need to src/components or src/lib.',
}));
const sharedBoundary = {
  target: ['./src/components', './src/lib', './src/api', './src/i18n', './src/testing'],
  from: ['./src/features', './src/app'],
  message: 'Shared code must not import from a feature or from the app.',
};
const featureAppBoundary = {
  target: './src/features',
  from: './src/app',
  message: 'A feature must not import from the app (routes, layout, providers).',
};

export default defineConfig([
  globalIgnores(['dist/', 'src/api/generated/', 'test-results/', 'playwright-report/', 'blob-report/', 'node_modules/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended],
    languageOptions: { globals: globals.browser },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.app.json' })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: [...featureBoundaries, sharedBoundary, featureAppBoundary] }],
    },
  },
  {
    // Screen tests mount their feature in the real app (routes, guards, providers: renderApp in
    // src/app/testing.tsx, or <App />), so a test file may import the app; the other boundaries hold.
    files: ['src/features/**/*.test.{ts,tsx}'],
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: [...featureBoundaries, sharedBoundary] }],
    },
  },
  {
    files: ['e2e/**/*.ts', '*.config.{ts,js}', 'scripts/**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
]);
