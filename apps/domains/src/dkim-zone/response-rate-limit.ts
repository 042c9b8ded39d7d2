import { isIPv6 } from 'node:net';
import { embeddedIpv4, ipClient, ipv6Prefix } from '@mailroom/runtime';

export type RateVerdict = 'answer' | 'slip' | 'drop';

/** Buckets kept at most; past this the longest-unseen networks are forgotten (a flood of spoofed sources). */
const MAX_NETWORKS = 65_536;

/**
 * Response rate limiting for the UDP side of an authoritative server, as
 * BIND, Knot and NSD do it. A DKIM TXT answer is about ten times the size of
 * the query, so an open server reflects spoofed queries at a victim; a real
 * resolver caches the answer for its TTL and asks rarely. Each client network
 * (a /24 of IPv4, a /56 of IPv6, BIND's defaults) gets `perSecond` answers a
 * second with a burst of as many. Past that, every second answer "slips":
 * it goes out truncated (TC set, no records), which costs a victim nothing
 * and tells a real resolver to ask again over TCP. The rest are dropped.
 *
 * TCP gets a limiter of its own, keyed by `tcpClient` (an IPv4 address, an
 * IPv6 /64): its sources cannot be spoofed, so there is no reflection to stop,
 * but one client could still make the server look keys up as fast as it can
 * send; a resolver sent over from UDP starts with a full allowance there.
 */
export class ResponseRateLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number; excess: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
    /** Which clients share an allowance: clientNetwork (UDP, whose sources may be forged) or tcpClient (TCP). */
    private readonly clientOf: (address: string) => string = clientNetwork,
  ) {}

  verdict(address: string): RateVerdict {
    if (this.perSecond <= 0) return 'answer';
    const network = this.clientOf(address);
    const now = this.now();
    let bucket = this.buckets.get(network);
    if (bucket) {
      this.buckets.delete(network);
      bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
      bucket.at = now;
    } else {
      bucket = { tokens: this.perSecond, at: now, excess: 0 };
      if (this.buckets.size >= MAX_NETWORKS) this.buckets.delete(this.buckets.keys().next().value!);
    }
    // Re-inserted on every use, so the Map's first key is always the network seen longest ago.
    this.buckets.set(network, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 'answer';
    }
    bucket.excess += 1;
    return bucket.excess % 2 === 1 ? 'slip' : 'drop';
  }
}

/** The network a client address counts under: its /24 (IPv4, including IPv4-mapped IPv6) or its /56 (IPv6). */
export function clientNetwork(address: string): string {
  const ipv4 = embeddedIpv4(address);
  if (ipv4) return `${ipv4.split('.').slice(0, 3).join('.')}.0/24`;
  return isIPv6(address) ? ipv6Prefix(address, 56) : address;
}

/** The client a TCP connection counts as: its IPv4 address, or the /64 of its IPv6 one (ipClient). */
export const tcpClient = ipClient;
