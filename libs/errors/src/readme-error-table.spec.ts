import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HTTP_STATUS_BY_CODE } from './error-code';

/** The README's Errors table, "| `code` | status | when |", as code → status. */
function readmeErrorTable(): Record<string, number> {
  const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
  const section = /^## Errors\n([\s\S]*?)\n## /m.exec(readme)?.[1] ?? '';
  return Object.fromEntries([...section.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map(([, code, status]) => [code, Number(status)]));
}

describe('README errors table', () => {
  it('lists every ErrorCode with the status the API answers it with, and no other code', () => {
    expect(readmeErrorTable()).toEqual(HTTP_STATUS_BY_CODE);
  });
});
