import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configurationTable } from './config-table';

describe(configurationTable.name, () => {
  it('is the table in the README, so no default or meaning there has gone stale (scripts/sync-readme-config.sh rewrites it)', () => {
    const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
    const between = /<!-- config-table:start -->\n([\s\S]*?)\n<!-- config-table:end -->/.exec(readme);
    expect(between?.[1]).toBe(configurationTable());
  });
});
