// After `vite build`: writes <file>.br (brotli, quality 11) and <file>.gz (gzip, level 9) next to
// every .js, .css, .html, .svg, .json and .wasm file in dist/ larger than 1 kB, for the server
// to send to clients that accept them. Files that would not get smaller are skipped, and so is
// dist/.vite/ (Vite's manifest, read by scripts/bundle-budget.mjs, not served).
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const EXTENSIONS = /\.(js|css|html|svg|json|wasm)$/;
const MIN_SIZE = 1024;

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('.')) yield* files(path);
    } else if (entry.isFile() && EXTENSIONS.test(entry.name)) yield path;
  }
}

let count = 0;
let before = 0;
let afterBrotli = 0;
let afterGzip = 0;
for (const path of files(dist)) {
  if (statSync(path).size <= MIN_SIZE) continue;
  const data = readFileSync(path);
  const brotli = brotliCompressSync(data, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
      [constants.BROTLI_PARAM_MODE]: path.endsWith('.wasm') ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
    },
  });
  const gzip = gzipSync(data, { level: constants.Z_BEST_COMPRESSION });
  if (brotli.length < data.length) writeFileSync(`${path}.br`, brotli);
  if (gzip.length < data.length) writeFileSync(`${path}.gz`, gzip);
  count += 1;
  before += data.length;
  afterBrotli += Math.min(brotli.length, data.length);
  afterGzip += Math.min(gzip.length, data.length);
}

const kB = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
console.log(`precompress: ${count} files in ${relative(process.cwd(), dist) || 'dist'}, ${kB(before)} -> ${kB(afterBrotli)} brotli, ${kB(afterGzip)} gzip`);
