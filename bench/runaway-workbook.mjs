// The engine's bytes of a workbook holding one formula, written by the browser's engine
// (@ironcalc/wasm under Node) with its evaluation paused, so that a formula that would run for
// hours is stored without being computed (as a browser would save it before it finished).
// Run from frontend/ (where the package is installed): node ../bench/runaway-workbook.mjs FORMULA OUT
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(`${process.cwd()}/package.json`);
const entry = require.resolve('@ironcalc/wasm');
const ironcalc = await import(entry);
await ironcalc.default({ module_or_path: readFileSync(entry.replace(/[^/]+$/, 'wasm_bg.wasm')) });
const [formula, out] = process.argv.slice(2);
const model = new ironcalc.Model('Runaway', 'en', 'UTC', 'en');
model.pauseEvaluation();
model.setUserInput(0, 1, 1, formula);
model.setUserInput(0, 1, 2, '1');
writeFileSync(out, model.toBytes());
