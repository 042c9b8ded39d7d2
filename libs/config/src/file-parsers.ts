import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { Parser } from './parsers';

/**
 * A file the app reads at connect time (a NATS .creds file, a PEM bundle), or
 * empty for "not set". Checked at boot so a typo in the path names its
 * variable, rather than surfacing later as an ENOENT from inside a client.
 */
export const asOptionalReadableFile: Parser<string> = (untrimmed) => {
  // White space around it goes, as around every value: a line break a secrets file left is no part of the path.
  const raw = untrimmed.trim();
  if (raw === '') return '';
  let isFile: boolean;
  try {
    isFile = statSync(raw).isFile();
  } catch {
    throw new Error(`names a file that does not exist: '${raw}'`);
  }
  if (!isFile) throw new Error(`must name a file, got the directory '${raw}'`);
  try {
    accessSync(raw, constants.R_OK);
  } catch {
    throw new Error(`names a file this process cannot read: '${raw}'`);
  }
  return raw;
};

/**
 * A readable PEM bundle holding at least one certificate, or empty for "not set": a file of something else (a
 * key, a DER certificate) would otherwise only fail the first TLS check that needs it, as an untrusted certificate.
 */
export const asOptionalPemCertificates: Parser<string> = (untrimmed) => {
  const path = asOptionalReadableFile(untrimmed);
  if (path && !/-----BEGIN CERTIFICATE-----/.test(readFileSync(path, 'utf8'))) throw new Error(`holds no PEM certificate ('-----BEGIN CERTIFICATE-----'): '${path}'`);
  return path;
};
