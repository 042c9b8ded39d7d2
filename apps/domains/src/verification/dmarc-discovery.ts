import { getDomain } from 'tldts';
import { checkDmarc, hasNoDmarcRecord, LookupResult, RecordOutcome } from './verification-rules';

/**
 * The organizational domain (RFC 7489 §3.2): the registered name under a
 * public suffix, private suffixes included (each `github.io` site is its own
 * organization). Null for a name that is its own organizational domain.
 */
export function organizationalDomainOf(name: string): string | null {
  const org = getDomain(name, { allowPrivateDomains: true });
  return org && org !== name ? org : null;
}

/**
 * DMARC policy discovery as receivers do it (RFC 7489 §6.6.3): the record at
 * `_dmarc.<name>`; when there is none (no TXT starting with v=DMARC1), the
 * organizational domain's record applies instead, so `mail.example.com` is
 * covered by `_dmarc.example.com`. A record of the name's own, even a broken
 * one, ends discovery there (step 5).
 */
export async function discoverDmarc(name: string, txt: (host: string) => Promise<LookupResult>): Promise<RecordOutcome> {
  const own = await txt(`_dmarc.${name}`);
  const org = organizationalDomainOf(name);
  if (!org || !hasNoDmarcRecord(own)) return checkDmarc(own);
  const orgHost = `_dmarc.${org}`;
  const lookup = await txt(orgHost);
  const outcome = checkDmarc(lookup);
  if (outcome.result === 'error') return { result: 'error', error: outcome.error, host: orgHost };
  // Neither has one: the record we hand out (at the name itself) is what to publish; missingRecords says so, and the
  // name's own lookup says why a TXT there that is not a DMARC record to receivers does not count.
  if (outcome.result === 'fail' && hasNoDmarcRecord(lookup)) return checkDmarc(own);
  if (outcome.result === 'fail') {
    return { result: 'fail', problem: `no DMARC record at _dmarc.${name}, and the one receivers use instead, at ${orgHost} (the organizational domain, RFC 7489 §6.6.3), does not count: ${outcome.problem}` };
  }
  return outcome;
}
