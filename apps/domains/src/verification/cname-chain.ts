import { LookupResult, normalizeName, RecordOutcome } from './verification-rules';

/** CNAME records followed at most; resolvers give up on longer chains too (BIND's limit is 16, Unbound's 11). */
export const MAX_CNAME_HOPS = 8;

/**
 * Whether `name` leads to `expectedTarget` through CNAMEs: a CNAME query
 * answers one hop, so each is asked in turn, as a resolver chases them (RFC
 * 1034 §3.6.2). A hop back to a name already on the chain is a loop.
 */
export async function checkCnameChain(name: string, expectedTarget: string, cname: (host: string) => Promise<LookupResult>): Promise<RecordOutcome> {
  const target = normalizeName(expectedTarget);
  const chain = [normalizeName(name)];
  while (chain.length <= MAX_CNAME_HOPS) {
    const current = chain[chain.length - 1];
    const lookup = await cname(current);
    if (lookup.kind === 'error') return chain.length === 1 ? { result: 'error', error: lookup.error } : { result: 'error', error: `${lookup.error} (at ${current})`, host: current };
    if (lookup.kind === 'missing' || lookup.values.length === 0) return chainEnd(chain, expectedTarget);
    const hops = lookup.values.map(normalizeName);
    if (hops.includes(target)) return { result: 'pass' };
    if (chain.includes(hops[0])) return { result: 'fail', problem: `the CNAME chain makes a loop: ${[...chain, hops[0]].join(' → ')}` };
    chain.push(hops[0]);
  }
  return { result: 'fail', problem: `the CNAME chain ${chain.join(' → ')} takes more than ${MAX_CNAME_HOPS} hops without reaching ${expectedTarget}` };
}

/** The chain stopped short of the target: no CNAME at all, one that points elsewhere, or a longer one that ends elsewhere. */
function chainEnd(chain: string[], expectedTarget: string): RecordOutcome {
  if (chain.length === 1) return { result: 'fail' };
  if (chain.length === 2) return { result: 'fail', problem: `the CNAME points to ${chain[1]}, not ${expectedTarget}` };
  return { result: 'fail', problem: `the CNAME chain ${chain.join(' → ')} ends at ${chain[chain.length - 1]}, not ${expectedTarget}` };
}
