// The JavaScript budget of the sign-in page: after `vite build`, the gzip size (zlib level 9) of
// the scripts a browser loads for /login, which are the entry script(s) of dist/index.html, the
// chunks it modulepreloads, and, when the sign-in screen is a lazy route, the login chunk and the
// chunks it imports statically. Dynamic imports are not followed: they load later, if ever.
// Fails (exit 1) over the budget.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, gzipSync } from 'node:zlib';

const BUDGET = 150 * 1024;
const LOGIN_MODULE = 'src/features/auth/screens/LoginScreen.tsx';
const dist = fileURLToPath(new URL('../dist/', import.meta.url));

const read = (path, what) => {
  try {
    return readFileSync(join(dist, path));
  } catch {
    console.error(`bundle-budget: no ${what} at dist/${path}; run \`vite build\` first (with build.manifest on).`);
    process.exit(2);
  }
};

const html = read('index.html', 'index.html').toString('utf8');
const manifest = JSON.parse(read('.vite/manifest.json', 'Vite manifest').toString('utf8'));

const byFile = new Map(Object.values(manifest).map((chunk) => [chunk.file, chunk]));
const files = new Set();

/** A chunk and everything it imports statically. */
function addWithImports(key) {
  const chunk = manifest[key];
  if (!chunk || files.has(chunk.file)) return;
  files.add(chunk.file);
  for (const imported of chunk.imports ?? []) addWithImports(imported);
}
const keyOf = (file) => Object.keys(manifest).find((key) => manifest[key].file === file);

// What index.html loads: module scripts and modulepreloads (same-origin paths under /).
const attribute = (tag, name) => tag.match(new RegExp(`\\b${name}="([^"]+)"`))?.[1];
for (const [tag] of html.matchAll(/<script\b[^>]*>/g)) {
  const src = attribute(tag, 'src');
  if (src && /\btype="module"/.test(tag)) files.add(src.replace(/^\//, ''));
}
for (const [tag] of html.matchAll(/<link\b[^>]*>/g)) {
  const rel = attribute(tag, 'rel');
  const hrefValue = attribute(tag, 'href');
  if (rel === 'modulepreload' && hrefValue) files.add(hrefValue.replace(/^\//, ''));
}
// ...and what the entry imports statically, should index.html not list it all.
for (const file of [...files]) {
  const key = keyOf(file);
  if (key) for (const imported of manifest[key].imports ?? []) addWithImports(imported);
}

// The sign-in screen: in the entry's graph already, or a lazy chunk loaded as /login opens.
if (!manifest[LOGIN_MODULE]) {
  const inEntry = [...files].some((file) => byFile.get(file)?.src === LOGIN_MODULE);
  if (!inEntry) console.warn(`bundle-budget: ${LOGIN_MODULE} is not a chunk of its own; assuming it is bundled into the entry.`);
} else {
  addWithImports(LOGIN_MODULE);
}

const rows = [...files]
  .filter((file) => file.endsWith('.js'))
  .map((file) => {
    const bytes = read(file, 'script');
    return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length };
  })
  .sort((a, b) => b.gzip - a.gzip);

const kB = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
const width = Math.max(...rows.map((row) => row.file.length));
console.log(`JavaScript loaded for /login (gzip -9):`);
for (const row of rows) console.log(`  ${row.file.padEnd(width)}  ${kB(row.gzip).padStart(9)}  (${kB(row.raw)} raw)`);
const total = rows.reduce((sum, row) => sum + row.gzip, 0);
const rawTotal = rows.reduce((sum, row) => sum + row.raw, 0);
console.log(`  ${'total'.padEnd(width)}  ${kB(total).padStart(9)}  (${kB(rawTotal)} raw), budget ${kB(BUDGET)}`);

if (total > BUDGET) {
  console.error(`bundle-budget: over budget by ${kB(total - BUDGET)}.`);
  process.exit(1);
}
console.log('bundle-budget: within budget.');
