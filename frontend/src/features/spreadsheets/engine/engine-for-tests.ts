import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Model, initSync } from '@ironcalc/wasm';
import type { Engine } from './workbook';

/** The real engine for Node tests: the same WebAssembly the browser loads, read from disk. */
export function engineForTests(): Engine {
  const require = createRequire(import.meta.url);
  const wasm = require.resolve('@ironcalc/wasm/wasm_bg.wasm');
  initSync({ module: readFileSync(wasm) });
  return Model;
}
