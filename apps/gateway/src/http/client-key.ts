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
 * One client, as the gateway's per-client limits count it (failed
 * authentications, repeated tracking hits): an IPv4 address, whether it
 * arrived as a.b.c.d or ::ffff:a.b.c.d, or the /64 of an IPv6 address.
 */
export function clientKeyOf(address: string): string {
  // The usual spellings need no 128-bit arithmetic: this runs on every request while any client is counted.
  if (isIPv4(address)) return IPV4_KEY_PREFIX + address;
  if (address.startsWith('::ffff:') && isIPv4(address.slice(7))) return IPV4_KEY_PREFIX + address.slice(7);
  const range = parseIpRange(address);
  if (!range) return address;
  if (range.network >> 32n === IPV4_MAPPED_HIGH_BITS) return IPV4_KEY_PREFIX + dottedQuad(range.network & 0xffffffffn);
  return ((range.network >> BigInt(128 - IPV6_CLIENT_PREFIX)) << BigInt(128 - IPV6_CLIENT_PREFIX)).toString(16);
}
