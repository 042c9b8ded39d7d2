import { isIPv4 } from 'node:net';
import { parseIpRange } from '@mailroom/auth';

/** IPv6 bits that name one client: a subscriber is handed a whole /64 (RFC 6177), so it could rotate addresses within it. */
const IPV6_CLIENT_PREFIX = 64;
/** The upper 96 bits of an IPv4 address in IPv6 space (::ffff:0:0/96). */
const IPV4_MAPPED_HIGH_BITS = 0xffffn;

/** Keys IPv4 clients apart from IPv6 /64s, which are written in hex. */
const IPV4_KEY_PREFIX = 'v4:';

const dottedQuad = (bits: bigint) => [24n, 16n, 8n, 0n].map((shift) => String((bits >> shift) & 0xffn)).join('.');

/**
 * Who a failed authentication is counted against: an IPv4 address, whether
 * it arrived as a.b.c.d or ::ffff:a.b.c.d, or the /64 of an IPv6 address.
 */
export function failureClientOf(address: string): string {
  // The usual spellings need no 128-bit arithmetic: this runs on every request while any client is counted.
  if (isIPv4(address)) return IPV4_KEY_PREFIX + address;
  if (address.startsWith('::ffff:') && isIPv4(address.slice(7))) return IPV4_KEY_PREFIX + address.slice(7);
  const range = parseIpRange(address);
  if (!range) return address;
  if (range.network >> 32n === IPV4_MAPPED_HIGH_BITS) return IPV4_KEY_PREFIX + dottedQuad(range.network & 0xffffffffn);
  return ((range.network >> BigInt(128 - IPV6_CLIENT_PREFIX)) << BigInt(128 - IPV6_CLIENT_PREFIX)).toString(16);
}

/**
 * Failed authentications (401) per client, in windows that open with a
 * client's first failure and last `windowMs`. A client with `limit` failures
 * in its window is blocked until the window ends. Bounded, like
 * UnknownKeyMemo, because every new address is a new entry: windows all last
 * as long, so the Map's insertion order is also the order they end in, and
 * ended ones are dropped from its front; past the bound the oldest go.
 */
export class AuthFailureLimiter {
  /** client → its current window, oldest first. */
  private readonly windows = new Map<string, { endsAt: number; failures: number }>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly maxClients: number,
  ) {}

  /** How long the address stays blocked, in ms; 0 when it is not. */
  retryAfterMs(address: string, now = Date.now()): number {
    if (this.limit <= 0 || this.windows.size === 0) return 0;
    const window = this.windows.get(failureClientOf(address));
    if (!window || window.failures < this.limit) return 0;
    return Math.max(0, window.endsAt - now);
  }

  recordFailure(address: string, now = Date.now()): void {
    if (this.limit <= 0 || this.maxClients <= 0) return;
    const client = failureClientOf(address);
    let window = this.windows.get(client);
    if (!window || window.endsAt <= now) {
      this.windows.delete(client);
      this.forgetEnded(now);
      while (this.windows.size >= this.maxClients) this.windows.delete(this.windows.keys().next().value as string);
      window = { endsAt: now + this.windowMs, failures: 0 };
      this.windows.set(client, window);
    }
    window.failures += 1;
  }

  get size(): number {
    return this.windows.size;
  }

  private forgetEnded(now: number): void {
    for (const [client, window] of this.windows) {
      if (window.endsAt > now) return;
      this.windows.delete(client);
    }
  }
}
