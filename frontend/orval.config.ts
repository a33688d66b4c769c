import { defineConfig } from 'orval';

// The spec is written by the backend (`backend openapi`); its paths are relative to /api/v1.
const input = '../openapi.json';

type Spec = { paths?: Record<string, Record<string, unknown>> };

/** package.json with the versions behind its npm aliases, which orval cannot parse (scripts/orval-package.mjs). */
const packageJson = './scripts/orval-package.mjs';

/**
 * poem-openapi declares JSON bodies as `application/json; charset=utf-8`; orval's zod generator
 * only reads `application/json`. Rename the media type (same schema) for the zod output only.
 */
const plainJsonMediaType = (spec: Spec): Spec => JSON.parse(JSON.stringify(spec).replaceAll('"application/json; charset=utf-8"', '"application/json"'));

export default defineConfig({
  api: {
    input,
    output: {
      mode: 'tags-split',
      client: 'react-query',
      httpClient: 'fetch',
      clean: true,
      target: 'src/api/generated/endpoints.ts',
      packageJson,
      schemas: 'src/api/generated/model',
      baseUrl: '/api/v1',
      override: {
        mutator: { path: './src/api/mutator.ts', name: 'customFetch' },
        fetch: { includeHttpResponseReturnType: false },
      },
    },
  },
  // Runs after `api`, whose clean step empties src/api/generated (zod/ included).
  zod: {
    input: { target: input, override: { transformer: plainJsonMediaType as never } },
    output: {
      mode: 'tags-split',
      client: 'zod',
      clean: true,
      target: 'src/api/generated/zod/endpoints.ts',
      packageJson,
      fileExtension: '.zod.ts',
    },
  },
});
