import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asOptionalReadableFile } from './file-parsers';

describe('asOptionalReadableFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-file-parser-'));
  const file = join(dir, 'user.creds');
  writeFileSync(file, 'creds');

  it('takes empty as not set, and a readable file as its path', () => {
    expect(asOptionalReadableFile('')).toBe('');
    expect(asOptionalReadableFile(file)).toBe(file);
  });

  it('reads a path with white space around it (a line break a secrets file left) as the path, as the README says of every value', () => {
    expect(asOptionalReadableFile(` ${file}\n`)).toBe(file);
    expect(asOptionalReadableFile(' \n')).toBe('');
  });

  it('refuses a missing file and a directory, naming the path', () => {
    expect(() => asOptionalReadableFile(join(dir, 'missing.creds'))).toThrow(`names a file that does not exist: '${join(dir, 'missing.creds')}'`);
    expect(() => asOptionalReadableFile(dir)).toThrow(`must name a file, got the directory '${dir}'`);
  });
});
