import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every end-to-end run keeps its servers' logs (JSON lines, one file per instance) and fails when
 * they hold an error, a panic or a 5xx answer: a server failing behind a screen that still looks
 * right must not pass. The directory is made once per run (the env carries it to the workers).
 */
export const serverLogDir = (process.env.E2E_SERVER_LOG_DIR ??= mkdtempSync(join(tmpdir(), 'e2e-server-logs-')));

/** Lines the run expects: none yet. Add a pattern here only with the test that causes it. */
const EXPECTED: RegExp[] = [];

type Line = { level?: string; message?: string; status?: number; [key: string]: unknown };

/** The problems in one log's text: ERROR lines, panics, and requests answered 5xx. */
export function problems(text: string): string[] {
  const found: string[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    let line: Line | null = null;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      // A line that is not JSON (a panic's message, a backtrace) is a problem only if it says so.
    }
    const bad = line
      ? line.level === 'ERROR' || (line.message === 'request' && typeof line.status === 'number' && line.status >= 500)
      : /panicked|^thread '/.test(raw);
    if (bad && !EXPECTED.some((pattern) => pattern.test(raw))) found.push(raw.slice(0, 500));
  }
  return found;
}

export default function checkServerLogs(): void {
  const found = readdirSync(serverLogDir)
    .filter((name) => name.endsWith('.log'))
    .flatMap((name) => problems(readFileSync(join(serverLogDir, name), 'utf8')).map((line) => `${name}: ${line}`));
  if (found.length > 0) {
    throw new Error(
      `The server logged ${found.length} error(s), panic(s) or 5xx answer(s) during the run (logs in ${serverLogDir}):\n${found.slice(0, 20).join('\n')}`,
    );
  }
}
