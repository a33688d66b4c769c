/// <reference types="node" />
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { engineForTests } from './engine-for-tests';
import { ENGINE_VERSION } from './load';
import { type Engine, Workbook } from './workbook';

/*
 * The browser's engine (@ironcalc/wasm) and the server's (the `ironcalc` crate) must agree on the
 * bytes of a workbook: the server checks, exports and reads ranges of what browsers save, and
 * browsers open what the server imports. Each side writes a workbook the other reads, through the
 * real server binary's engine worker (`backend spreadsheet-engine`: one job on stdin, the answer on
 * stdout), built by `make test` before the frontend's tests.
 */
const backend = resolve(
  process.env.E2E_BACKEND_BIN ?? `${process.env.CARGO_TARGET_DIR ?? fileURLToPath(new URL('../../../../../target', import.meta.url))}/debug/backend`,
);

/** Runs one engine job in the server's worker: the answer's JSON line, and the bytes after it. */
function serverEngine(job: object, input: Uint8Array): { answer: Record<string, unknown>; bytes: Buffer } {
  const out = execFileSync(backend, ['spreadsheet-engine'], { input: Buffer.concat([Buffer.from(`${JSON.stringify(job)}\n`), input]), env: {} });
  const split = out.indexOf(10);
  return { answer: JSON.parse(out.subarray(0, split).toString()) as Record<string, unknown>, bytes: out.subarray(split + 1) };
}

let engine: Engine;
beforeAll(() => {
  if (!existsSync(backend)) throw new Error(`no server binary at ${backend}: build it first (cargo build -p backend)`);
  engine = engineForTests();
});

describe('the browser and the server engines agree', () => {
  it('the server reads what the browser wrote, and computes the same values', () => {
    const book = Workbook.create(engine, 'Budget');
    book.setInputs(
      [
        [1, 1, 'Month'],
        [1, 2, 'Sales'],
        [2, 1, 'Jan'],
        [2, 2, '17'],
        [3, 1, 'Feb'],
        [3, 2, '25'],
        [4, 1, 'Total'],
        [4, 2, '=SUM(B2:B3)*2'],
        [5, 2, '=ROUND(AVERAGE(B2:B3)/3, 2)'],
        [6, 2, '=IF(B4>80,"high","low")'],
      ].map(([row, column, input]) => ({ sheet: 0, row: row as number, column: column as number, input: input as string })),
    );
    expect([4, 5, 6].map((row) => book.cell(0, row, 2).text)).toEqual(['84', '7', 'high']);

    expect(serverEngine({ job: 'check' }, book.toBytes()).answer).toEqual({ answer: 'bytes' });
    const csv = serverEngine({ job: 'csv', sheet: null }, book.toBytes());
    expect(csv.answer).toEqual({ answer: 'bytes' });
    expect(csv.bytes.toString()).toBe('Month,Sales\nJan,17\nFeb,25\nTotal,84\n,7\n,high\n');
    const range = serverEngine({ job: 'range', sheet: null, range: 'A1:B4' }, book.toBytes()).answer;
    expect(range).toEqual({
      answer: 'range',
      columns: ['Month', 'Sales'],
      rows: [
        ['Jan', 17],
        ['Feb', 25],
        ['Total', 84],
      ],
    });
  });

  it('the browser opens what the server wrote, and computes the same values', () => {
    const sample = execFileSync(backend, ['sample-workbook', '--rows', '3', '--columns', '4'], { env: {} });
    const book = Workbook.fromBytes(engine, new Uint8Array(sample));
    // Each row: three numbers, then their SUM; the same values the server computed.
    const server = serverEngine({ job: 'csv', sheet: null }, new Uint8Array(sample)).bytes.toString().trim().split('\n');
    const browser = [1, 2, 3].map((row) => [1, 2, 3, 4].map((column) => book.cell(0, row, column).text).join(','));
    expect(browser).toEqual(server);
    expect(browser[0]).toBe('48,65,82,195');
  });

  it('the stored engine version names the server crate the browser must match', () => {
    const cargo = execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps', '--offline'], {
      cwd: fileURLToPath(new URL('../../../../../backend', import.meta.url)),
      encoding: 'utf8',
    });
    const backendPackage = (JSON.parse(cargo) as { packages: { name: string; dependencies: { name: string; req: string }[] }[] }).packages.find(
      (p) => p.name === 'backend',
    );
    const ironcalc = backendPackage?.dependencies.find((d) => d.name === 'ironcalc');
    expect(ENGINE_VERSION).toBe(`ironcalc-${ironcalc?.req.replace(/^=/, '')}`);
  });
});
