import { isIP } from 'node:net';
import { ipv4ToInt, ipv6Groups } from './ip-address';

/**
 * Which addresses Mailroom never connects to on a stranger's say-so: webhook
 * URLs (SSRF) and recipients' MX hosts. The lists follow RFC 6890
 * (special-purpose registries): anything that is not a public unicast address
 * is refused, including cloud metadata (169.254.169.254, fd00:ec2::254, both
 * inside refused ranges) and IPv6 forms that smuggle an IPv4 address.
 */
const IPV4_REFUSED: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.169.254', 32, 'cloud metadata'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

function inIpv4Range(value: number, base: string, prefix: number): boolean {
  const size = 2 ** (32 - prefix);
  const start = ipv4ToInt(base);
  return value >= start && value < start + size;
}

function classifyIpv4(address: string): string | null {
  const value = ipv4ToInt(address);
  const hit = IPV4_REFUSED.find(([base, prefix]) => inIpv4Range(value, base, prefix));
  return hit ? hit[2] : null;
}

/** The IPv4 address in two of the groups: the last two for NAT64, the second and third for 6to4. */
function embeddedIpv4(groups: number[], first = 6): string {
  return [groups[first] >> 8, groups[first] & 0xff, groups[first + 1] >> 8, groups[first + 1] & 0xff].join('.');
}

function classifyIpv6(g: number[]): string | null {
  const allZeroUntil = (n: number) => g.slice(0, n).every((group) => group === 0);
  if (allZeroUntil(8)) return 'unspecified';
  if (allZeroUntil(7) && g[7] === 1) return 'loopback';
  if (allZeroUntil(5) && g[5] === 0xffff) return 'IPv4-mapped';
  if (allZeroUntil(6)) return 'IPv4-compatible';
  // ::ffff:0:a.b.c.d (RFC 2765, SIIT) also carries an IPv4 address for a translator to reach.
  if (allZeroUntil(4) && g[4] === 0xffff && g[5] === 0) return 'IPv4-translated';
  // 64:ff9b:1::/48 (RFC 8215) is NAT64 for a site's own translators: it leads wherever they lead.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'local-use NAT64';
  if (g[0] === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return 'discard-only';
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'documentation';
  if ((g[0] & 0xfff0) === 0x3ff0) return 'documentation';
  // 2001::/23 holds Teredo (2001::/32, which embeds an obfuscated IPv4 address), benchmarking and ORCHIDs.
  if (g[0] === 0x2001 && g[1] < 0x0200) return 'IETF protocol assignments';
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique local (ULA)';
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xffc0) === 0xfec0) return 'site-local';
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  return null;
}

/** `a loopback address`, `an unspecified address`: a kind of address as a noun phrase, with the article its sound takes. */
function anAddress(kind: string): string {
  // "unique" begins with a consonant sound, whatever its first letter.
  return `${/^(?!uni)[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind} address`;
}

/** A refused IPv4 address that an IPv6 one leads to, as a noun phrase, or null. */
function embeddedIpv4Refusal(g: number[]): string | null {
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((group) => group === 0)) {
    const inner = classifyIpv4(embeddedIpv4(g));
    if (inner) return `a NAT64 address of ${anAddress(inner)}`;
  }
  // 6to4 (RFC 3056) routes 2002:AABB:CCDD::/48 to the IPv4 address AA.BB.CC.DD.
  if (g[0] === 0x2002) {
    const inner = classifyIpv4(embeddedIpv4(g, 1));
    if (inner) return `a 6to4 address of ${anAddress(inner)}`;
  }
  return null;
}

/**
 * Why an IP address is refused, as the noun phrase messages use (`a loopback
 * address`, `a NAT64 address of a private address`), or null when it is a
 * public address.
 */
export function refusedAddressReason(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) {
    const kind = classifyIpv4(bare);
    return kind && anAddress(kind);
  }
  if (family !== 6) return null;
  // The well-known NAT64 (64:ff9b::/96) and 6to4 (2002::/16) prefixes overlap none of classifyIpv6's ranges.
  const groups = ipv6Groups(bare);
  const kind = classifyIpv6(groups);
  return kind ? anAddress(kind) : embeddedIpv4Refusal(groups);
}
