import { isIP } from 'node:net';

/**
 * An IP address or CIDR range as one range of the IPv6 address space. IPv4
 * is placed where a dual-stack socket shows it, in ::ffff:0:0/96 (RFC 4291
 * §2.5.5.2): 10.0.0.0/8 is ::ffff:10.0.0.0/104. With one space for both
 * families, a client, a key's ranges and a caller's ranges compare the same
 * way whichever spelling each was written in.
 */
export interface IpRange {
  /** The range's first address, as a 128-bit number. */
  network: bigint;
  /** Prefix length in IPv6 bits (96 + the IPv4 prefix for an IPv4 range). */
  bits: number;
}

const IPV4_MAPPED = 0xffffn << 32n;

/**
 * The range `text` names (an address is a /128), or null when it names none.
 * A zone id (`fe80::1%eth0`) is dropped: it names an interface of the host
 * that wrote it, which a remote client's address never carries. New keys
 * cannot be given one; keys stored before that are read without it.
 */
export function parseIpRange(text: string): IpRange | null {
  const [withZone, prefix, extra] = text.split('/');
  const address = withZone.replace(/%.*$/, '');
  const family = isIP(address);
  if (!family || extra !== undefined) return null;
  const offset = family === 4 ? 96 : 0;
  const bits = prefix === undefined ? 128 : offset + Number(prefix);
  if (prefix !== undefined && !/^\d{1,3}$/.test(prefix)) return null;
  if (bits > 128) return null;
  const value = family === 4 ? IPV4_MAPPED | ipv4Value(address) : ipv6Value(address);
  return { network: value & maskOf(bits), bits };
}

/** True when every address of `inner` lies in `outer`. */
export function rangeContains(outer: IpRange, inner: IpRange): boolean {
  return outer.bits <= inner.bits && (inner.network & maskOf(outer.bits)) === outer.network;
}

function maskOf(bits: number): bigint {
  return bits === 0 ? 0n : ((1n << BigInt(bits)) - 1n) << BigInt(128 - bits);
}

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

/** Expands `::` and a dotted IPv4 tail; `address` has passed isIP as IPv6. */
function ipv6Value(address: string): bigint {
  const groups = (part: string): bigint[] => {
    if (part === '') return [];
    return part.split(':').flatMap((group) => {
      if (!group.includes('.')) return [BigInt(`0x${group}`)];
      const v4 = ipv4Value(group);
      return [v4 >> 16n, v4 & 0xffffn];
    });
  };
  const [head, tail] = address.split('::');
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail);
  const all = [...before, ...Array<bigint>(8 - before.length - after.length).fill(0n), ...after];
  return all.reduce((value, group) => (value << 16n) | group, 0n);
}
