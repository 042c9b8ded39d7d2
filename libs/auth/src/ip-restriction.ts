import { IpRange, parseIpRange, rangeContains } from './ip-range';

/**
 * ipRestrictions and client addresses compare in one space, IPv4 inside
 * ::ffff:0:0/96 (see ip-range.ts): an IPv4 client that reaches a dual-stack
 * socket as ::ffff:a.b.c.d matches 10.0.0.0/8 and ::ffff:10.0.0.0/104 alike,
 * and a key restricted to either can grant the other. ipAllowed and
 * rangeCoveredBy use the same containment, so a caller may grant exactly the
 * ranges whose clients it would admit itself.
 */
function rangesOf(texts: string[]): IpRange[] {
  return texts.map(parseIpRange).filter((range): range is IpRange => range !== null);
}

/** True when the key has no ipRestrictions or one of them covers the address. */
export function ipAllowed(address: string, restrictions: string[]): boolean {
  if (restrictions.length === 0) return true;
  const client = address.includes('/') ? null : parseIpRange(address);
  return client !== null && rangesOf(restrictions).some((range) => rangeContains(range, client));
}

/** True when every address of `inner` (an IP or CIDR) lies inside one of `outer`. */
export function rangeCoveredBy(inner: string, outer: string[]): boolean {
  const range = parseIpRange(inner);
  return range !== null && rangesOf(outer).some((candidate) => rangeContains(candidate, range));
}
