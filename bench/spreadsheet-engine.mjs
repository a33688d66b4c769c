// The browser's spreadsheet engine (@ironcalc/wasm, the same engine version as the server's) under
// Node, with a workbook's bytes: load (fromBytes), evaluate, save (toBytes), and one edit that
// recomputes its row. Run from frontend/ (where the package is installed): node ../bench/spreadsheet-engine.mjs FILE
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const require = createRequire(`${process.cwd()}/package.json`);
const entry = require.resolve('@ironcalc/wasm');
const ironcalc = await import(entry);
const wasm = readFileSync(entry.replace(/[^/]+$/, 'wasm_bg.wasm'));
await ironcalc.default({ module_or_path: wasm });
const bytes = readFileSync(process.argv[2]);
const reps = Number(process.env.REPS ?? 20);
const time = (fn) => {
  const out = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    fn();
    out.push(performance.now() - t);
  }
  out.sort((a, b) => a - b);
  return `p50 ${out[Math.floor(reps / 2)].toFixed(1)} ms, p99 ${out[Math.min(reps - 1, Math.round(reps * 0.99))].toFixed(1)} ms (n=${reps})`;
};
let model;
console.log(`   load (Model.from_bytes) of ${bytes.length} bytes: ${time(() => (model = ironcalc.Model.from_bytes(bytes, 'en')))}`);
console.log(`   evaluate: ${time(() => model.evaluate())}`);
console.log(`   save (toBytes): ${time(() => model.toBytes())}`);
console.log(`   one edit and its recomputation: ${time(() => model.setUserInput(0, 50, 1, String(Math.random())))}`);
