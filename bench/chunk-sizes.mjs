// Gzip sizes of the built app's chunks (run from frontend/ after `npm run build`): the largest
// ones, and those of the lazy routes' heavy parts (spreadsheet engine, grid, map, charts).
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const dir = 'dist/assets';
const rows = readdirSync(dir)
  .filter((f) => /\.(js|wasm|css)$/.test(f))
  .map((f) => ({ file: f, gzip: gzipSync(readFileSync(`${dir}/${f}`)).length }))
  .sort((a, b) => b.gzip - a.gzip);
for (const { file, gzip } of rows.slice(0, 15)) console.log(`   ${(gzip / 1024).toFixed(1).padStart(8)} kB  ${file}`);
