import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { SmtpOutcome } from '../smtp-outcome';
import { isNullMx, orderMxHosts } from './mx-order';

export interface MailHost {
  /** The MX host name (or the domain itself for an implicit MX); TLS SNI uses it. */
  name: string;
  addresses: string[];
}

/** Where a domain's mail goes, or why it goes nowhere. */
export type MailRoute = { kind: 'hosts'; hosts: MailHost[] } | { kind: 'unroutable'; outcome: SmtpOutcome };

const NO_DATA = new Set(['ENODATA', 'ENOTFOUND']);

function dnsFailure(domain: string, error: NodeJS.ErrnoException): MailRoute {
  return { kind: 'unroutable', outcome: { kind: 'temporary', code: null, reply: `4.4.3 DNS lookup for ${domain} failed (${error.code ?? error.message})` } };
}

/**
 * Finds the mail hosts of a recipient domain through DNS_SERVERS, as RFC 5321
 * §5.1 says: the MX records in preference order; with no MX at all the
 * domain's own A/AAAA records act as an implicit MX; a null MX (RFC 7505)
 * or a domain that does not exist bounces at once. DNS trouble (timeout,
 * SERVFAIL) is temporary, so the recipient is retried; for one MX host of
 * several it only skips that host.
 */
export class MxResolver {
  private readonly resolver: Resolver;

  constructor(servers: string[], timeoutMs: number) {
    this.resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    if (servers.length) this.resolver.setServers(servers);
  }

  async route(domain: string): Promise<MailRoute> {
    let names: string[];
    try {
      const records = await this.resolver.resolveMx(domain);
      if (isNullMx(records)) {
        return { kind: 'unroutable', outcome: { kind: 'permanent', code: 556, reply: `556 5.1.10 ${domain} accepts no mail (null MX, RFC 7505)` } };
      }
      names = records.length ? orderMxHosts(records) : [domain];
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND') return { kind: 'unroutable', outcome: { kind: 'permanent', code: 550, reply: `550 5.1.2 ${domain} does not exist` } };
      if (code !== 'ENODATA') return dnsFailure(domain, error as NodeJS.ErrnoException);
      names = [domain];
    }

    // All at once, in MX order. A host whose lookup failed is skipped while another resolved, as MTAs do:
    // the mail goes to the hosts that can be found, and waits only when none can.
    const lookups = await Promise.all(names.map((name) => this.addressesOf(name).catch((error: NodeJS.ErrnoException) => error)));
    const hosts: MailHost[] = [];
    lookups.forEach((addresses, index) => {
      if (!(addresses instanceof Error) && addresses.length) hosts.push({ name: names[index], addresses });
    });
    if (hosts.length) return { kind: 'hosts', hosts };
    const failed = lookups.findIndex((addresses) => addresses instanceof Error);
    if (failed >= 0) return dnsFailure(names[failed], lookups[failed] as NodeJS.ErrnoException);
    const implicit = names.length === 1 && names[0] === domain;
    return implicit
      ? { kind: 'unroutable', outcome: { kind: 'permanent', code: 550, reply: `550 5.1.2 ${domain} has no MX and no address record` } }
      : { kind: 'unroutable', outcome: { kind: 'temporary', code: null, reply: `4.4.3 the MX hosts of ${domain} have no address` } };
  }

  private async addressesOf(name: string): Promise<string[]> {
    if (isIP(name)) return [name];
    const lookup = (query: Promise<string[]>) => query.catch((error: NodeJS.ErrnoException) => (NO_DATA.has(error.code ?? '') ? [] : Promise.reject(error)));
    const [v4, v6] = await Promise.all([lookup(this.resolver.resolve4(name)), lookup(this.resolver.resolve6(name))]);
    return [...v4, ...v6];
  }
}
