import { CnameWalk, cnameChainOutcome, followCnameChain, leadsNowhere } from './cname-chain';
import { dkimKeyRecordProblem } from './dkim-key-record';
import { tagList } from './tag-list';
import { LookupResult, RecordOutcome } from './verification-rules';

/** The two lookups a DKIM check makes; DnsLookup provides them. */
export interface DkimLookups {
  cname(host: string): Promise<LookupResult>;
  txt(host: string): Promise<LookupResult>;
}

/**
 * The CNAME we issued at the selector name, reached directly or through a
 * chain of the owner's CNAMEs (followed as for tracking domains); when it is
 * not reached, the key a verifier would find there. Both asked at once, so a
 * check still takes one DNS_TIMEOUT_MS at most and a verify answers within
 * RPC_TIMEOUT_MS.
 */
export async function checkDkim(selectorHost: string, expectedTarget: string, publicKeyBase64: string, dns: DkimLookups): Promise<RecordOutcome> {
  const [walk, txt] = await Promise.all([followCnameChain(selectorHost, expectedTarget, (host) => dns.cname(host)), dns.txt(selectorHost)]);
  return withKeyReached(selectorHost, walk, cnameChainOutcome(walk, expectedTarget), txt, publicKeyBase64);
}

/**
 * What a verifier sees at the selector name: the TXT it reaches through any
 * CNAMEs. It passes when it carries our key, so a DNS host that flattens
 * CNAMEs into the records they lead to verifies as signing will. Otherwise the
 * CNAME chain's own outcome stands, or the TXT lookup's failure.
 */
function withKeyReached(selectorHost: string, walk: CnameWalk, cnameOutcome: RecordOutcome, txt: LookupResult, publicKeyBase64: string): RecordOutcome {
  if (cnameOutcome.result === 'pass') return cnameOutcome;
  // Also when a hop's CNAME lookup failed: the key a verifier reaches settles it.
  if (txt.kind === 'found' && txt.values.some((record) => dkimPublicKeyOf(record) === publicKeyBase64)) {
    if (txt.values.length === 1) {
      const unusable = dkimKeyRecordProblem(txt.values[0]);
      return unusable ? { result: 'fail', problem: `the TXT at ${selectorHost} carries this domain's key, but ${unusable}; publish the CNAME instead` } : { result: 'pass' };
    }
    // RFC 6376 §3.6.2.2: a selector's TXT must be unique; with several the result is undefined (mailauth reads the first).
    return {
      result: 'fail',
      problem: `found ${txt.values.length} TXT records at ${selectorHost}, one with this domain's key; publish that one alone, since which one a verifier reads is undefined (RFC 6376 §3.6.2.2)`,
    };
  }
  if (cnameOutcome.result === 'error') return cnameOutcome;
  // A resolver answers SERVFAIL for the TXT behind a loop (or a chain longer than it follows): the chain's problem, not a DNS failure to wait out.
  if (txt.kind === 'error' && !leadsNowhere(walk)) return { result: 'error', error: txt.error };
  return cnameOutcome;
}

/** The p= of a DKIM key record (RFC 6376 §3.6.1); folding whitespace inside base64 does not count (§3.2). */
function dkimPublicKeyOf(record: string): string | null {
  const p = tagList(record).find(([name]) => name === 'p');
  return p === undefined ? null : p[1].replace(/\s+/g, '');
}
