import { isIP, SocketAddress } from 'node:net';

/**
 * `::ffff:10.0.0.0/8` reads like 10.0.0.0/8, but an IPv6 prefix counts IPv6
 * bits: it is ::/8, which holds every IPv4-mapped address, so it matches
 * something else than it reads as (a key's ipRestrictions admitted every IPv4
 * client; proxy-addr, for TRUSTED_PROXIES, matched none). Written as IPv4-mapped, a range needs /96 or more
 * (`::ffff:10.0.0.0/104` is 10.0.0.0/8), whether its address is written
 * dotted or in hex (`::ffff:a00:0/8` is ::/8 too). So does any IPv6
 * address written with a dotted IPv4 tail: `::10.0.0.0/8` reads the same
 * and is ::/8 as well.
 */
export function isMappedWithIpv4Prefix(value: string): boolean {
  const [address, prefix] = value.split('/');
  if (prefix === undefined || isIP(address) !== 6 || Number(prefix) >= 96) return false;
  // Any IPv6 address written with an IPv4 tail (::10.0.0.0/8, IPv4-compatible) reads the same way, and is ::/8 too.
  if (address.includes('.')) return true;
  // SocketAddress writes every spelling of a mapped address (::ffff:a00:0, 0:0:0:0:0:ffff:…) as ::ffff:a.b.c.d.
  const canonical = new SocketAddress({ address, family: 'ipv6' }).address;
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/.test(canonical);
}
