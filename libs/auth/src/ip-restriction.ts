import { BlockList, isIP } from 'node:net';

/** IPv4 clients reach a dual-stack socket as ::ffff:a.b.c.d; compare them as IPv4. */
export function normalizeIp(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

function blockListOf(ranges: string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [address, prefix] = range.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

/** True when the key has no ipRestrictions or one of them covers the address. */
export function ipAllowed(address: string, restrictions: string[]): boolean {
  if (restrictions.length === 0) return true;
  const ip = normalizeIp(address);
  const family = isIP(ip);
  if (!family) return false;
  return blockListOf(restrictions).check(ip, family === 6 ? 'ipv6' : 'ipv4');
}

/** True when every address of `inner` (an IP or CIDR) lies inside one of `outer`. */
export function rangeCoveredBy(inner: string, outer: string[]): boolean {
  const [address, prefix] = inner.split('/');
  const family = isIP(address);
  const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
  return outer.some((range) => {
    const [outerAddress, outerPrefix] = range.split('/');
    if (isIP(outerAddress) !== family) return false;
    const outerBits = outerPrefix === undefined ? (family === 6 ? 128 : 32) : Number(outerPrefix);
    return outerBits <= bits && ipAllowed(address, [range]);
  });
}
