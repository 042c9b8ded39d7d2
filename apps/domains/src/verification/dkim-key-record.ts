import { tagList } from './tag-list';

/** Whether a colon-separated tag value (RFC 6376 §3.6.1 `h=`, `s=`) lists `wanted`. */
const lists = (value: string, wanted: string[]) => value.split(':').some((item) => wanted.includes(item.trim()));

/**
 * Why verifiers would not use a key record for Mailroom's rsa-sha256 signatures, or null when they would (RFC 6376
 * §3.6.1): `v=`, when present, is the first tag and `DKIM1` (a record starting with another version is discarded);
 * `k=`, when present, is `rsa`; `h=`, when present, allows sha256; `s=`, when present, covers email.
 */
export function dkimKeyRecordProblem(record: string): string | null {
  const tags = tagList(record);
  const versionAt = tags.findIndex(([name]) => name === 'v');
  if (versionAt > 0) return `its v=${tags[versionAt][1]} is not its first tag, so verifiers discard it (RFC 6376 §3.6.1)`;
  if (versionAt === 0 && tags[0][1] !== 'DKIM1') return `it starts with v=${tags[0][1]}, not v=DKIM1, so verifiers discard it (RFC 6376 §3.6.1)`;
  const value = (name: string) => tags.find(([tag]) => tag === name)?.[1];
  const keyType = value('k');
  if (keyType !== undefined && keyType !== 'rsa') return `its k=${keyType} says the key is not the RSA key it is (RFC 6376 §3.6.1)`;
  const hashes = value('h');
  if (hashes !== undefined && !lists(hashes, ['sha256'])) return `its h=${hashes} does not allow sha256, and Mailroom signs with rsa-sha256 (RFC 6376 §3.6.1)`;
  const services = value('s');
  if (services !== undefined && !lists(services, ['*', 'email'])) return `its s=${services} does not cover email (RFC 6376 §3.6.1)`;
  return null;
}
