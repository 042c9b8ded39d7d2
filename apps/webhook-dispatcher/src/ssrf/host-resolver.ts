import type { LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import { performance } from 'node:perf_hooks';

/** The two queries a host lookup makes; node's c-ares Resolver in production, a fake in unit tests. */
export interface AddressQueries {
  resolve4(hostname: string): Promise<string[]>;
  resolve6(hostname: string): Promise<string[]>;
  /** Stops the queries still in flight (a c-ares channel's cancel). */
  cancel?(): void;
}

/**
 * Raised when a webhook host's lookup has no answer within the budget. The
 * message is what the webhook's owner reads in the attempt log: their DNS,
 * not their endpoint, is what failed.
 */
export class DnsTimeoutError extends Error {
  readonly code = 'ETIMEOUT';
  constructor(hostname: string, timeoutMs: number) {
    super(`DNS lookup of ${hostname} timed out after ${timeoutMs} ms`);
    this.name = 'DnsTimeoutError';
  }
}

/** An answer that says the name has no address of that family, as opposed to a DNS failure. */
const NO_ADDRESS = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * RFC 8305 §3 (Resolution Delay): once one family has answered with addresses, the other gets this long before
 * the connection goes ahead without it, so a host whose AAAA (or A) queries are black-holed is still reached at once.
 */
export const RESOLUTION_DELAY_MS = 50;

type Family = 4 | 6;
type Answer = { addresses: string[] } | { error: NodeJS.ErrnoException };

function lookupError(hostname: string, code: string): NodeJS.ErrnoException {
  const message = NO_ADDRESS.has(code) ? `DNS lookup of ${hostname} found no address (${code})` : `DNS lookup of ${hostname} failed (${code})`;
  return Object.assign(new Error(message), { code, hostname });
}

/**
 * Resolves webhook hosts with c-ares (node's `dns.Resolver`) instead of
 * getaddrinfo: c-ares queries are sockets on the event loop, while
 * getaddrinfo blocks a libuv thread (Node lets lookups take at most two of
 * its four), so a few lookups of one black-holed name held every other
 * webhook's lookup for the system resolver's full timeout. A and AAAA are
 * asked in parallel, and the whole lookup has one deadline.
 */
export class HostResolver {
  /** `queriesFor`: the queries of one lookup, made for it alone so that they can be cancelled when it is over. */
  constructor(
    private readonly queriesFor: () => AddressQueries,
    private readonly timeoutMs: number,
  ) {}

  /**
   * servers: DNS_SERVERS (empty: the nameservers of /etc/resolv.conf). The lookup's own deadline is the budget:
   * c-ares's timeout per try is not (Node 20's c-ares, told 8 s, gave up after 5–6 s, and told 3 s after 4), so it
   * may try twice, which also resends a query whose packet was lost, and a timeout it reports first says how long
   * the lookup really took.
   */
  static create(servers: string[], timeoutMs: number): HostResolver {
    // A channel per lookup: cancel() stops every query of its channel, and a lookup over (its deadline, or a
    // resolution delay after an answer) must not leave c-ares retrying for up to another budget, nor stop another's.
    return new HostResolver(() => {
      const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
      if (servers.length) resolver.setServers(servers);
      return resolver;
    }, timeoutMs);
  }

  /**
   * Every address of the host in the families asked for (0: both), IPv4 first: Node's connection attempts
   * (autoSelectFamily) alternate families from the first address, and IPv4 is the family every host can reach.
   */
  addresses(hostname: string, family: 0 | Family): Promise<LookupAddress[]> {
    const families: Family[] = family === 0 ? [4, 6] : [family];
    const started = performance.now();
    const queries = this.queriesFor();
    return new Promise((resolve, reject) => {
      const answers = new Map<Family, Answer>();
      let delay: NodeJS.Timeout | undefined;
      let settled = false;
      const finish = (timedOut: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        clearTimeout(delay);
        if (answers.size < families.length) queries.cancel?.();
        const found = families.flatMap((each) => {
          const answer = answers.get(each);
          return answer && 'addresses' in answer ? answer.addresses.map((address) => ({ address, family: each })) : [];
        });
        if (found.length) return resolve(found);
        if (timedOut) return reject(new DnsTimeoutError(hostname, this.timeoutMs));
        const failures = [...answers.values()].flatMap((answer) => ('error' in answer ? [answer.error.code ?? 'EFAIL'] : []));
        const failure = failures.find((code) => !NO_ADDRESS.has(code)) ?? failures[0] ?? 'ENODATA';
        // c-ares's own timeout, when it fires before the deadline, is the same failure, with the time it really took.
        reject(failure === 'ETIMEOUT' ? new DnsTimeoutError(hostname, Math.round(performance.now() - started)) : lookupError(hostname, failure));
      };
      const deadline = setTimeout(() => finish(true), this.timeoutMs);
      for (const each of families) {
        const query = each === 4 ? queries.resolve4(hostname) : queries.resolve6(hostname);
        void query
          .then((addresses): Answer => ({ addresses }), (error: NodeJS.ErrnoException): Answer => ({ error }))
          .then((answer) => {
            if (settled) return;
            answers.set(each, answer);
            if (answers.size === families.length) return finish(false);
            if ('addresses' in answer && answer.addresses.length && !delay) delay = setTimeout(() => finish(false), RESOLUTION_DELAY_MS);
          });
      }
    });
  }
}
