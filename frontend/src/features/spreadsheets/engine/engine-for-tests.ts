import { Model, initSync } from '@ironcalc/wasm';
// The WebAssembly the browser loads, inlined by Vite as a data URL: Node tests need no file access.
import wasm from '@ironcalc/wasm/wasm_bg.wasm?url&inline';
import { base64ToBytes } from './base64';
import type { Engine } from './workbook';

/** The real engine for Node tests (the browser's own WebAssembly), started synchronously. */
export function engineForTests(): Engine {
  initSync({ module: base64ToBytes(wasm.slice(wasm.indexOf(',') + 1)) });
  return Model;
}
