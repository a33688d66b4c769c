import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ISOLATED_TESTS } from './isolated-tests';

const root = join(__dirname, '..', '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return /\.test\.tsx?$/.test(entry.name) ? [relative(root, path)] : [];
  });
}

describe('the screen tests that share one module graph', () => {
  it('leave out every file that replaces or reloads a module', () => {
    // Written so that this file's own source does not match.
    const replaces = new RegExp(['vi\\.mock\\(', 'vi\\.doMock\\(', 'vi\\.resetModules\\('].join('|'));
    const files = testFiles(join(root, 'src'));
    const mocking = files.filter((file) => replaces.test(readFileSync(join(root, file), 'utf8')));
    expect(mocking.length).toBeGreaterThanOrEqual(8);
    expect(mocking.filter((file) => !ISOLATED_TESTS.includes(file))).toEqual([]);
  });

  it('list only files that exist', () => {
    const files = testFiles(join(root, 'src'));
    expect(ISOLATED_TESTS.filter((file) => !files.includes(file))).toEqual([]);
  });
});
