import { LookupResult, normalizeName, RecordOutcome } from './verification-rules';

/** CNAME records followed at most; resolvers give up on longer chains too (BIND's limit is 16, Unbound's 11). */
export const MAX_CNAME_HOPS = 8;

/** Where following CNAMEs from a name ended; `chain` starts at the name. */
export type CnameWalk =
  | { end: 'target' }
  | { end: 'no-cname'; chain: string[] }
  | { end: 'loop'; chain: string[] }
  | { end: 'too-long'; chain: string[] }
  | { end: 'error'; error: string; at: string; first: boolean };

/** A walk that loops or runs past the hop limit. */
export type BrokenWalk = Extract<CnameWalk, { end: 'loop' | 'too-long' }>;

/**
 * Follows `name`'s CNAMEs towards `expectedTarget` (null: to wherever they end):
 * a CNAME query answers one hop, so each is asked in turn, as a resolver chases
 * them (RFC 1034 §3.6.2). A hop back to a name already on the chain is a loop.
 */
export async function followCnameChain(name: string, expectedTarget: string | null, cname: (host: string) => Promise<LookupResult>): Promise<CnameWalk> {
  const target = expectedTarget === null ? null : normalizeName(expectedTarget);
  const chain = [normalizeName(name)];
  while (chain.length <= MAX_CNAME_HOPS) {
    const current = chain[chain.length - 1];
    const lookup = await cname(current);
    if (lookup.kind === 'error') return { end: 'error', error: lookup.error, at: current, first: chain.length === 1 };
    if (lookup.kind !== 'found' || lookup.values.length === 0) return { end: 'no-cname', chain };
    const hops = lookup.values.map(normalizeName);
    if (target !== null && hops.includes(target)) return { end: 'target' };
    if (chain.includes(hops[0])) return { end: 'loop', chain: [...chain, hops[0]] };
    chain.push(hops[0]);
  }
  return { end: 'too-long', chain };
}

/** A chain that loops or runs past the hop limit leads to no record at all. */
export function leadsNowhere(walk: CnameWalk): walk is BrokenWalk {
  return walk.end === 'loop' || walk.end === 'too-long';
}

/** What is wrong with a chain that leads nowhere; `expectedTarget`: where it should have led, if anywhere. */
export function brokenChainProblem(walk: BrokenWalk, expectedTarget?: string): string {
  if (walk.end === 'loop') return `the CNAME chain makes a loop: ${walk.chain.join(' → ')}`;
  return `the CNAME chain ${walk.chain.join(' → ')} takes more than ${MAX_CNAME_HOPS} hops${expectedTarget ? ` without reaching ${expectedTarget}` : ''}`;
}

/** A walk as a record's outcome: a pass, the problem with the chain, or the lookup that failed (named when not the first). */
export function cnameChainOutcome(walk: CnameWalk, expectedTarget: string): RecordOutcome {
  switch (walk.end) {
    case 'target':
      return { result: 'pass' };
    case 'error':
      return walk.first ? { result: 'error', error: walk.error } : { result: 'error', error: `${walk.error} (at ${walk.at})`, host: walk.at };
    case 'loop':
    case 'too-long':
      return { result: 'fail', problem: brokenChainProblem(walk, expectedTarget) };
    case 'no-cname':
      return chainEnd(walk.chain, expectedTarget);
  }
}

/** Whether `name` leads to `expectedTarget` through CNAMEs (see followCnameChain). */
export async function checkCnameChain(name: string, expectedTarget: string, cname: (host: string) => Promise<LookupResult>): Promise<RecordOutcome> {
  return cnameChainOutcome(await followCnameChain(name, expectedTarget, cname), expectedTarget);
}

/** The chain stopped short of the target: no CNAME at all, one that points elsewhere, or a longer one that ends elsewhere. */
function chainEnd(chain: string[], expectedTarget: string): RecordOutcome {
  if (chain.length === 1) return { result: 'fail' };
  if (chain.length === 2) return { result: 'fail', problem: `the CNAME points to ${chain[1]}, not ${expectedTarget}` };
  return { result: 'fail', problem: `the CNAME chain ${chain.join(' → ')} ends at ${chain[chain.length - 1]}, not ${expectedTarget}` };
}
