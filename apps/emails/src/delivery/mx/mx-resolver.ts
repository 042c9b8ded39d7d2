import type { Resolver } from 'node:dns/promises';
import { DnsDeadline, lookupChannel, refusedAddressReason } from '@mailroom/runtime';
import { SmtpOutcome } from '../smtp-outcome';
import { hostAddresses } from './host-addresses';
import { isNullMx, orderMxHosts, PreferredHost } from './mx-order';

export interface MailHost extends PreferredHost {
  /** `name` is the MX host name (or the domain itself for an implicit MX); TLS SNI uses it. */
  addresses: string[];
}

/**
 * Where a domain's mail goes, or why it goes nowhere. `ttlSeconds`: how long
 * the answer may be reused, the shortest TTL of the host addresses (Node's
 * resolver does not give the MX record's own TTL).
 */
export type MailRoute = { kind: 'hosts'; hosts: MailHost[]; ttlSeconds: number } | { kind: 'unroutable'; outcome: SmtpOutcome };

/** Something that says where a domain's mail goes: the resolver, or the cache in front of it. */
export interface MailRouter {
  route(domain: string): Promise<MailRoute>;
}

/**
 * The most MX hosts looked up, and addresses kept, for one route: Exim's hosts_max_try_hardlimit, far more than any
 * domain's mail needs. A recipient domain's DNS is anyone's to write, and without a bound one listing hundreds of MX
 * records, or a host with hundreds of addresses, cost two queries per host, a cached route of that size (MxRouteCache
 * keeps 10,000), and a connection pool per address tried (TransporterPool). The most preferred go first.
 */
export const MAX_ROUTE_ADDRESSES = 50;

/**
 * The budget of a whole resolution: the MX query, then the address lookups of its hosts (in parallel), get
 * twice DNS_TIMEOUT_MS between them, one DNS_TIMEOUT_MS for each of the two queries in a row. One deadline
 * rather than one per step, so that time one step did not need (a first server found dead on the MX query, say,
 * which c-ares then skips for the hosts) is left to the other; and however many servers, tries and hosts c-ares
 * works through, a domain whose DNS is down holds a delivery slot this long and no longer.
 */
export const mxResolutionBudgetMs = (dnsTimeoutMs: number) => 2 * dnsTimeoutMs;

function dnsFailure(domain: string, error: NodeJS.ErrnoException): MailRoute {
  return { kind: 'unroutable', outcome: { kind: 'temporary', code: null, reply: `4.4.3 DNS lookup for ${domain} failed (${error.code ?? error.message})` } };
}

/**
 * Finds the mail hosts of a recipient domain through DNS_SERVERS, as RFC 5321
 * §5.1 says: the MX records in preference order; with no MX at all the
 * domain's own A/AAAA records act as an implicit MX; a null MX (RFC 7505),
 * a domain that does not exist, or MX hosts none of which has an address
 * bounces at once. DNS trouble (timeout,
 * SERVFAIL, the budget spent) is temporary, so the recipient is retried; for
 * one MX host of several it only skips that host.
 */
export class MxResolver implements MailRouter {
  /** allowPrivate: DELIVERY_ALLOW_PRIVATE_MX; otherwise non-public addresses are dropped from every host. */
  constructor(
    private readonly servers: string[],
    private readonly timeoutMs: number,
    private readonly allowPrivate = false,
  ) {}

  /** Each resolution on a channel of its own, cancelled when it is over (lookupChannel says why). */
  async route(domain: string): Promise<MailRoute> {
    const channel = lookupChannel(this.servers, this.timeoutMs);
    const deadline = new DnsDeadline(channel, mxResolutionBudgetMs(this.timeoutMs));
    try {
      return await this.routeWithin(domain, channel, deadline);
    } finally {
      deadline.end();
    }
  }

  private async routeWithin(domain: string, channel: Resolver, deadline: DnsDeadline): Promise<MailRoute> {
    let names: PreferredHost[];
    try {
      const records = await deadline.within(domain, channel.resolveMx(domain));
      if (isNullMx(records)) {
        return { kind: 'unroutable', outcome: { kind: 'permanent', code: 556, reply: `556 5.1.10 ${domain} accepts no mail (null MX, RFC 7505)` } };
      }
      names = records.length ? orderMxHosts(records).slice(0, MAX_ROUTE_ADDRESSES) : [{ name: domain, preference: 0 }];
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND') return { kind: 'unroutable', outcome: { kind: 'permanent', code: 550, reply: `550 5.1.2 ${domain} does not exist` } };
      if (code !== 'ENODATA') return dnsFailure(domain, error as NodeJS.ErrnoException);
      names = [{ name: domain, preference: 0 }];
    }

    // All at once, in MX order. A host whose lookup failed is skipped while another resolved, as MTAs do:
    // the mail goes to the hosts that can be found, and waits only when none can.
    // (A failed lookup is marked rather than told apart with instanceof Error, which fails for errors of another realm.)
    const lookups = await Promise.all(
      names.map((host) => hostAddresses(host.name, channel, deadline).catch((error: NodeJS.ErrnoException): { failure: NodeJS.ErrnoException } => ({ failure: error }))),
    );
    const hosts: MailHost[] = [];
    const refused: string[] = [];
    let ttlSeconds = Infinity;
    let room = MAX_ROUTE_ADDRESSES;
    lookups.forEach((found, index) => {
      if ('failure' in found) return;
      const addresses: string[] = [];
      for (const address of found.addresses) (this.allowPrivate || !refusedAddressReason(address) ? addresses : refused).push(address);
      if (!addresses.length || !room) return;
      hosts.push(Object.assign({}, names[index], { addresses: addresses.slice(0, room) }));
      room -= Math.min(room, addresses.length);
      ttlSeconds = Math.min(ttlSeconds, found.ttlSeconds);
    });
    // A route cut short by a failed lookup is used but never reused, as DNS failures are not: remembered, it
    // would keep the mail off the hosts it misses for as long as the others' TTL.
    const partial = lookups.some((found) => 'failure' in found || found.partial);
    if (hosts.length) return { kind: 'hosts', hosts, ttlSeconds: partial ? 0 : ttlSeconds };
    const failed = lookups.findIndex((found) => 'failure' in found);
    if (failed >= 0) return dnsFailure(names[failed].name, (lookups[failed] as { failure: NodeJS.ErrnoException }).failure);
    // Every address found is internal: a recipient domain's DNS, which anyone may write, must not aim our SMTP
    // client at the hosts around us (an internal relay may trust them). Permanent, as a null MX is. The reply
    // reaches the sender, so it names the kind of address, not the address: our resolver may be an internal one.
    if (refused.length) {
      const reply = `550 5.4.4 the mail hosts of ${domain} resolve only to non-public addresses (${refusedAddressReason(refused[0])}), which this server does not deliver to`;
      return { kind: 'unroutable', outcome: { kind: 'permanent', code: 550, reply } };
    }
    // Every lookup answered, and none found an address: the DNS says there is nowhere to deliver, which asking
    // again for the three days of the retry schedule would not change. Permanent, as Exim's "all relevant MX
    // records point to non-existent hosts" and Postfix's 5.4.4 for a host not found are.
    const implicit = names.length === 1 && names[0].name === domain;
    const reply = implicit ? `550 5.1.2 ${domain} has no MX and no address record` : `550 5.4.4 no MX host of ${domain} has an address record`;
    return { kind: 'unroutable', outcome: { kind: 'permanent', code: 550, reply } };
  }
}
