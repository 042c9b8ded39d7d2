import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV_SCHEMA } from './env-schema';

/** The README's configuration table must list every variable the code reads, as a "| `NAME` |" row. */
describe('README configuration table', () => {
  it('has a row for every variable of ENV_SCHEMA', () => {
    const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
    const missing = Object.keys(ENV_SCHEMA).filter((name) => !readme.includes(`| \`${name}\` |`));
    expect(missing).toEqual([]);
  });
});
