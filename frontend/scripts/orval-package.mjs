// package.json as orval should read it. orval looks up dependency versions there (TypeScript >= 4.5
// for Awaited<>, the react-query and zod majors) and cannot parse an npm alias such as
// "typescript": "npm:@typescript/typescript6@6.0.2": it gets the version behind the alias instead.
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const unaliased = (dependencies = {}) => Object.fromEntries(Object.entries(dependencies).map(([name, spec]) => [name, spec.replace(/^npm:.+@/, '')]));

export default { ...pkg, dependencies: unaliased(pkg.dependencies), devDependencies: unaliased(pkg.devDependencies) };
