import { isIPv4, isIPv6 } from 'node:net';
import { ipv6Groups } from './ip-address';

/**
 * The IPv4 address an address stands for: itself, or an IPv4-mapped IPv6
 * one in any spelling (`::ffff:192.0.2.7`, `::ffff:c000:207`,
 * `0:0:0:0:0:ffff:192.0.2.7`), as a dual-stack socket or a proxy header may
 * show it. Null for anything else.
 */
export function embeddedIpv4(address: string): string | null {
  if (isIPv4(address)) return address;
  // The usual spelling needs no parsing: this runs on hot paths.
  if (address.startsWith('::ffff:') && isIPv4(address.slice(7))) return address.slice(7);
  if (!isIPv6(address)) return null;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).some((group) => group !== 0) || groups[5] !== 0xffff) return null;
  return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
}

/** The first `bits` (49 to 64) of an IPv6 address, as `xxxx:xxxx:xxxx:xxxx::/bits`. */
export function ipv6Prefix(address: string, bits: number): string {
  const groups = ipv6Groups(address).slice(0, 4);
  groups[3] &= (0xffff << (64 - bits)) & 0xffff;
  return `${groups.map((group) => group.toString(16).padStart(4, '0')).join(':')}::/${bits}`;
}

/**
 * One client, as per-client limits count it: an IPv4 address, or the /64 of
 * an IPv6 one. A /64 is the smallest network an IPv6 host is given (RFC
 * 7421), and one host may take any address in it, so per address a client
 * would have 2^64 allowances. Anything that is no address is its own key.
 */
export function ipClient(address: string): string {
  const ipv4 = embeddedIpv4(address);
  if (ipv4) return ipv4;
  return isIPv6(address) ? ipv6Prefix(address, 64) : address;
}
