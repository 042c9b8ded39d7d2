import type { LookupAddress } from 'node:dns';
import { CancellableQueries, DnsDeadline, DnsTimeoutError, lookupChannel } from '@mailroom/runtime';

/** The two queries a host lookup makes; node's c-ares Resolver in production, a fake in unit tests. */
export interface AddressQueries extends CancellableQueries {
  resolve4(hostname: string): Promise<string[]>;
  resolve6(hostname: string): Promise<string[]>;
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
   * servers: DNS_SERVERS. The lookup, both families together, has DNS_TIMEOUT_MS: a webhook attempt must fail
   * with its DNS's fault well within WEBHOOK_TIMEOUT_MS. A lookup is over at its deadline, or a resolution delay
   * after an answer.
   */
  static create(servers: string[], timeoutMs: number): HostResolver {
    return new HostResolver(() => lookupChannel(servers, timeoutMs), timeoutMs);
  }

  /**
   * Every address of the host in the families asked for (0: both), IPv4 first: Node's connection attempts
   * (autoSelectFamily) alternate families from the first address, and IPv4 is the family every host can reach.
   */
  addresses(hostname: string, family: 0 | Family): Promise<LookupAddress[]> {
    const families: Family[] = family === 0 ? [4, 6] : [family];
    const queries = this.queriesFor();
    const deadline = new DnsDeadline(queries, this.timeoutMs);
    return new Promise((resolve, reject) => {
      const answers = new Map<Family, Answer>();
      let delay: NodeJS.Timeout | undefined;
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(delay);
        deadline.end();
        const found = families.flatMap((each) => {
          const answer = answers.get(each);
          return answer && 'addresses' in answer ? answer.addresses.map((address) => ({ address, family: each })) : [];
        });
        if (found.length) return resolve(found);
        const failures = [...answers.values()].flatMap((answer) => ('error' in answer ? [answer.error] : []));
        const failure = failures.find((error) => !NO_ADDRESS.has(error.code ?? '')) ?? failures[0];
        reject(failure instanceof DnsTimeoutError ? failure : lookupError(hostname, failure?.code ?? 'ENODATA'));
      };
      for (const each of families) {
        const query = each === 4 ? queries.resolve4(hostname) : queries.resolve6(hostname);
        void deadline
          .within(hostname, query)
          .then((addresses): Answer => ({ addresses }), (error: NodeJS.ErrnoException): Answer => ({ error }))
          .then((answer) => {
            if (settled) return;
            answers.set(each, answer);
            if (answers.size === families.length) return finish();
            if ('addresses' in answer && answer.addresses.length && !delay) delay = setTimeout(finish, RESOLUTION_DELAY_MS);
          });
      }
    });
  }
}
