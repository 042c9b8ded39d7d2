import { isIPv4, isIPv6 } from 'node:net';
import { ipv6Groups } from '@mailroom/runtime';

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
 * TCP gets a limiter of its own, keyed by `clientAddress`: its sources cannot
 * be spoofed, so there is no reflection to stop, but one client could still
 * make the server look keys up as fast as it can send; a resolver sent over
 * from UDP starts with a full allowance there.
 */
export class ResponseRateLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number; excess: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
    /** Which clients share an allowance: clientNetwork (UDP, whose sources may be forged) or clientAddress (TCP). */
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
  const mapped = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIPv4(mapped)) return `${mapped.split('.').slice(0, 3).join('.')}.0/24`;
  if (!isIPv6(address)) return address;
  const groups = ipv6Groups(address);
  return `${[...groups.slice(0, 3), groups[3] & 0xff00].map((group) => group.toString(16).padStart(4, '0')).join(':')}::/56`;
}

/** The client a TCP connection comes from: its address, an IPv4-mapped IPv6 one written as IPv4. */
export function clientAddress(address: string): string {
  return address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
}
