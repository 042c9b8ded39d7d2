import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asOptionalPemCertificates, asOptionalReadableFile } from './file-parsers';

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

describe('asOptionalPemCertificates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-pem-parser-'));
  const bundle = join(dir, 'ca.pem');
  writeFileSync(bundle, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  const key = join(dir, 'ca.key');
  writeFileSync(key, '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n');

  it('takes empty as not set, and a file holding a PEM certificate as its path', () => {
    expect(asOptionalPemCertificates('')).toBe('');
    expect(asOptionalPemCertificates(bundle)).toBe(bundle);
  });

  it('refuses a file holding no certificate, and a missing one, naming the path', () => {
    expect(() => asOptionalPemCertificates(key)).toThrow(`holds no PEM certificate ('-----BEGIN CERTIFICATE-----'): '${key}'`);
    expect(() => asOptionalPemCertificates(join(dir, 'missing.pem'))).toThrow('names a file that does not exist');
  });
});
