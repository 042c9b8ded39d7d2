import type { DnsRecordPurpose } from '@mailroom/contracts';

/** What a DNS lookup gave: records, a definite "no such record", or a failure that proves nothing. */
export type LookupResult = { kind: 'found'; values: string[] } | { kind: 'missing' } | { kind: 'error'; error: string };

/** pass: the record is right. fail: definitely missing or wrong. error: DNS failed, so we do not know. */
export type RecordOutcome =
  | { result: 'pass' }
  | { result: 'fail'; problem?: string }
  /** host: the name the failed lookup asked, when not the record's own (an SPF include, the organizational domain's DMARC). */
  | { result: 'error'; error: string; host?: string };

export type DomainCheck = Record<DnsRecordPurpose, RecordOutcome>;

export const normalizeName = (name: string) => name.trim().toLowerCase().replace(/\.+$/, '');

/**
 * The `name=value` tags of a DKIM key or DMARC record, both written as a tag
 * list (RFC 6376 §3.2, RFC 7489 §6.4): `;`-separated, blanks around names and
 * values not counted. Names as written: DKIM's are case-sensitive, DMARC's not.
 */
export function tagList(record: string): Array<[name: string, value: string]> {
  return record.split(';').flatMap((tag) => {
    const match = /^\s*([a-z]\w*)\s*=\s*([\s\S]*?)\s*$/i.exec(tag);
    return match ? [[match[1], match[2]] as [string, string]] : [];
  });
}

/**
 * RFC 7489 §6.4 ABNF: `"v" *WSP "=" *WSP %x44 %x4d %x41 %x52 %x43 %x31`, so the
 * tag name is case-insensitive and may have blanks around `=`, while DMARC1 is
 * matched exactly.
 */
const DMARC_VERSION = /^[vV][ \t]*=[ \t]*DMARC1[ \t]*(;|$)/;

/** RFC 7489 §6.6.3 step 4: no TXT starting with v=DMARC1 at all, which sends receivers on to the organizational domain. */
export function hasNoDmarcRecord(lookup: LookupResult): boolean {
  return lookup.kind === 'missing' || (lookup.kind === 'found' && !lookup.values.some((value) => DMARC_VERSION.test(value.trim())));
}

/** RFC 7489 §6.4: the record starts with `v=DMARC1`; the policy itself is the owner's choice. */
export function checkDmarc(lookup: LookupResult): RecordOutcome {
  if (lookup.kind === 'error') return { result: 'error', error: lookup.error };
  if (lookup.kind === 'missing') return { result: 'fail' };
  const dmarc = lookup.values.filter((value) => DMARC_VERSION.test(value.trim()));
  if (dmarc.length === 0) return { result: 'fail' };
  // RFC 7489 §6.6.3: more than one DMARC record means no policy at all.
  if (dmarc.length > 1) return { result: 'fail', problem: `found ${dmarc.length} DMARC records; publish exactly one` };
  if (!hasDmarcPolicy(dmarc[0])) {
    return { result: 'fail', problem: 'the DMARC record has no valid p= tag (none, quarantine or reject) and no rua=, so receivers apply no DMARC policy (RFC 7489 §6.6.3)' };
  }
  return { result: 'pass' };
}

/**
 * RFC 7489 §6.6.3 step 6: a record without a valid `p=` is applied as p=none
 * when it has a `rua=`, and otherwise not at all. Tag names and the policy
 * values are case-insensitive (§6.4 ABNF quoted strings).
 */
function hasDmarcPolicy(record: string): boolean {
  const tags = new Map(tagList(record).map(([name, value]) => [name.toLowerCase(), value]));
  return /^(none|quarantine|reject)$/i.test(tags.get('p') ?? '') || (tags.get('rua') ?? '') !== '';
}

/** Node's DNS error codes: which mean "no such record" and which mean "the lookup failed". */
const MISSING_CODES = new Set(['ENODATA', 'ENOTFOUND']);

export function classifyDnsError(code: string | undefined): LookupResult {
  if (code && MISSING_CODES.has(code)) return { kind: 'missing' };
  const known: Record<string, string> = {
    ETIMEOUT: 'timeout',
    ESERVFAIL: 'servfail',
    ECONNREFUSED: 'connection refused',
    EREFUSED: 'refused',
    EBADRESP: 'bad response',
  };
  return { kind: 'error', error: (code && known[code]) ?? (code ? code.toLowerCase() : 'lookup failed') };
}
