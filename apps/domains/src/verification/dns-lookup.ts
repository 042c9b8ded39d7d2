import { Resolver } from 'node:dns/promises';
import { classifyDnsError, LookupResult } from './verification-rules';

/**
 * TXT and CNAME lookups through DNS_SERVERS (or the system's resolvers). A new
 * DnsLookup per check: a resolver may cache answers (c-ares has a query cache, on by default in some versions), and a verify must
 * see what is published now. The check as a whole gets one DNS_TIMEOUT_MS:
 * lookups run in parallel, and those that follow others (SPF includes, CNAME
 * hops, the organizational domain's DMARC) share what is left of it, so a
 * verify still answers within RPC_TIMEOUT_MS however long a chain is.
 */
export class DnsLookup {
  private readonly resolver: Resolver;
  private readonly deadline: number;

  constructor(servers: string[], timeoutMs: number) {
    // One try: the timeout is the whole budget.
    this.resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    if (servers.length) this.resolver.setServers(servers);
    this.deadline = Date.now() + timeoutMs;
  }

  /** Each TXT record's character-strings joined, as RFC 7208 §3.3 and RFC 6376 §3.6.2.2 read them. */
  txt(host: string): Promise<LookupResult> {
    return this.withinBudget(async () => ({ kind: 'found', values: (await this.resolver.resolveTxt(host)).map((parts) => parts.join('')) }));
  }

  cname(host: string): Promise<LookupResult> {
    return this.withinBudget(async () => ({ kind: 'found', values: await this.resolver.resolveCname(host) }));
  }

  private async withinBudget(lookup: () => Promise<LookupResult>): Promise<LookupResult> {
    const left = this.deadline - Date.now();
    if (left <= 0) return { kind: 'error', error: 'timeout' };
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<LookupResult>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'error', error: 'timeout' }), left);
    });
    const answer = lookup().catch((error: NodeJS.ErrnoException) => classifyDnsError(error.code));
    try {
      return await Promise.race([answer, outOfTime]);
    } finally {
      clearTimeout(timer);
    }
  }
}
