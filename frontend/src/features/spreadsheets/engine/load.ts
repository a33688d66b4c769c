import init, { Model } from '@ironcalc/wasm';
import wasmUrl from '@ironcalc/wasm/wasm_bg.wasm?url';
import type { Engine } from './workbook';

/**
 * The engine whose bytes the server stores beside every workbook (`engineVersion`): the byte
 * format changes between versions, so a workbook of another version is not opened here.
 */
export const ENGINE_VERSION = 'ironcalc-0.8.3';

let ready: Promise<Engine> | undefined;

/**
 * Fetches and starts the engine's WebAssembly (some 670 kB compressed) once, when the first
 * spreadsheet opens: this module is only imported by the editor's lazy chunk.
 */
export function loadEngine(): Promise<Engine> {
  ready ??= init({ module_or_path: wasmUrl }).then(
    () => Model,
    (error: unknown) => {
      ready = undefined;
      throw error;
    },
  );
  return ready;
}
