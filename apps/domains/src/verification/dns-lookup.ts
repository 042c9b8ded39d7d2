import { Resolver } from 'node:dns/promises';
import { classifyDnsError, LookupResult } from './verification-rules';

/**
 * TXT and CNAME lookups through DNS_SERVERS (or the system's resolvers), with
 * a timeout on each. A new Resolver per check: c-ares caches answers per
 * resolver, and a verify must see what is published now.
 */
export class DnsLookup {
  private readonly resolver: Resolver;

  constructor(servers: string[], timeoutMs: number) {
    // One try: the timeout is the whole budget, so a verify answers within RPC_TIMEOUT_MS.
    this.resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    if (servers.length) this.resolver.setServers(servers);
  }

  /** Each TXT record's character-strings joined, as RFC 7208 §3.3 and RFC 6376 §3.6.2.2 read them. */
  async txt(host: string): Promise<LookupResult> {
    try {
      return { kind: 'found', values: (await this.resolver.resolveTxt(host)).map((parts) => parts.join('')) };
    } catch (error) {
      return classifyDnsError((error as NodeJS.ErrnoException).code);
    }
  }

  async cname(host: string): Promise<LookupResult> {
    try {
      return { kind: 'found', values: await this.resolver.resolveCname(host) };
    } catch (error) {
      return classifyDnsError((error as NodeJS.ErrnoException).code);
    }
  }
}
