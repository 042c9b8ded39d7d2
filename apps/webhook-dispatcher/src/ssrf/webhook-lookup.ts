import type { LookupFunction } from 'node:net';
import { resolvingLookup } from './guarded-lookup';
import { HostResolver } from './host-resolver';

export interface WebhookDnsOptions {
  allowPrivateNetworks: boolean;
  /** DNS_SERVERS: empty uses the nameservers of /etc/resolv.conf. */
  dnsServers: string[];
  /** DNS_TIMEOUT_MS: the budget of one host lookup (A and AAAA together). */
  dnsTimeoutMs: number;
}

/**
 * How the dispatcher resolves webhook hosts: through c-ares with a deadline
 * (and, with the SSRF guard on, the guard's check), or, undefined, through
 * Node's default getaddrinfo. getaddrinfo is kept only for private-network
 * development without DNS_SERVERS, where /etc/hosts, search domains and
 * `localhost` are what a receiver next door is reached by, and every endpoint
 * is one's own; c-ares reads none of them.
 */
export function webhookLookup(options: WebhookDnsOptions): LookupFunction | undefined {
  if (options.allowPrivateNetworks && options.dnsServers.length === 0) return undefined;
  return resolvingLookup(HostResolver.create(options.dnsServers, options.dnsTimeoutMs), !options.allowPrivateNetworks);
}
