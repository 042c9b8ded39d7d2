import type { DnsRecordPurpose } from '@mailroom/contracts';
import { dmarcPolicyProblem } from './dmarc-policy';
import { tagList } from './tag-list';

/**
 * What a DNS lookup gave: records, a definite "no such record", a failure that proves nothing, or (txtBehindCnames)
 * a name whose CNAMEs loop or run too long, so no record behind it can ever be reached: `problem` says which.
 */
export type LookupResult = { kind: 'found'; values: string[] } | { kind: 'missing' } | { kind: 'error'; error: string } | { kind: 'unreachable'; problem: string };

/** pass: the record is right. fail: definitely missing or wrong. error: DNS failed, so we do not know. */
export type RecordOutcome =
  | { result: 'pass' }
  | { result: 'fail'; problem?: string }
  /** host: the name the failed lookup asked, when not the record's own (an SPF include, the organizational domain's DMARC). */
  | { result: 'error'; error: string; host?: string };

export type DomainCheck = Record<DnsRecordPurpose, RecordOutcome>;

export const normalizeName = (name: string) => name.trim().toLowerCase().replace(/\.+$/, '');

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

/**
 * A TXT that holds the version tag, but later: RFC 7489 §6.3 says v= "MUST be the first tag", and receivers select
 * DMARC records by how they start (OpenDMARC, mailauth), so to them it is no record. Its owner should hear why.
 */
const MISPLACED_VERSION = 'the TXT record at _dmarc has v=DMARC1, but not as its first tag, so receivers ignore it (RFC 7489 §6.3); put v=DMARC1 first';
const hasLaterVersionTag = (value: string) => tagList(value).some(([name, tagValue], index) => index > 0 && name.toLowerCase() === 'v' && tagValue === 'DMARC1');

/**
 * RFC 7489 §6.4: the record starts with `v=DMARC1`; the policy itself is the owner's choice. Its other tags may come
 * in any order: §6.4's ABNF puts p= second, but receivers read the tags by name wherever they stand (OpenDMARC,
 * mailauth), and DMARCbis keeps only the rule that v= comes first.
 */
export function checkDmarc(lookup: LookupResult): RecordOutcome {
  if (lookup.kind === 'error') return { result: 'error', error: lookup.error };
  if (lookup.kind === 'missing') return { result: 'fail' };
  if (lookup.kind === 'unreachable') return { result: 'fail', problem: lookup.problem };
  const dmarc = lookup.values.filter((value) => DMARC_VERSION.test(value.trim()));
  if (dmarc.length === 0) return lookup.values.some(hasLaterVersionTag) ? { result: 'fail', problem: MISPLACED_VERSION } : { result: 'fail' };
  // RFC 7489 §6.6.3: more than one DMARC record means no policy at all.
  if (dmarc.length > 1) return { result: 'fail', problem: `found ${dmarc.length} DMARC records; publish exactly one` };
  const problem = dmarcPolicyProblem(dmarc[0]);
  return problem ? { result: 'fail', problem } : { result: 'pass' };
}

/**
 * Node's DNS error codes: which mean "no such record" and which mean "the lookup failed". EBADNAME is c-ares refusing
 * to ask for a name no DNS server could hold (an empty label, one over 63 octets, a blank): a name a record points to
 * (an SPF include, a CNAME hop) that has no records, for good, as a receiver finds; not a failure to wait out, which
 * would keep the domain's status as it is for ever.
 */
const MISSING_CODES = new Set(['ENODATA', 'ENOTFOUND', 'EBADNAME']);

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
