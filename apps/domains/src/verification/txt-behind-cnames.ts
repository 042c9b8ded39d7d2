import { brokenChainProblem, followCnameChain, leadsNowhere } from './cname-chain';
import type { DnsLookup } from './dns-lookup';
import { LookupResult } from './verification-rules';

/**
 * The TXT records at `host`, telling a CNAME loop from a DNS failure. A resolver answers SERVFAIL for a TXT query whose
 * CNAMEs loop or run longer than it follows (node's resolver then fails with ESERVFAIL), which alone reads as a failure
 * to wait out: the domain would stay as it is for ever, with no word of why. So when the TXT lookup fails, the name's
 * CNAMEs are followed hop by hop (a CNAME query answers one hop), as the DKIM check does: a chain that loops or runs
 * past MAX_CNAME_HOPS leads to no record, for good, and says so; any other failure stays a DNS failure.
 */
export async function txtBehindCnames(host: string, dns: Pick<DnsLookup, 'txt' | 'cname'>): Promise<LookupResult> {
  const lookup = await dns.txt(host);
  if (lookup.kind !== 'error') return lookup;
  const walk = await followCnameChain(host, null, (name) => dns.cname(name));
  if (!leadsNowhere(walk)) return lookup;
  return { kind: 'unreachable', problem: `${brokenChainProblem(walk)}; resolvers answer SERVFAIL for any record behind it, so receivers never reach one` };
}
