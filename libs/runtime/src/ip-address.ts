/** An IPv4 address in dotted form as a 32-bit number. */
export function ipv4ToInt(address: string): number {
  return address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}

/** Eight 16-bit groups of an IPv6 address (handles `::`, a zone index and a trailing dotted IPv4). */
export function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const value = ipv4ToInt(dotted[1]);
    text = text.slice(0, -dotted[1].length) + `${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  const zeros = tail === undefined ? [] : Array(8 - front.length - back.length).fill(0);
  return [...front, ...zeros, ...back];
}
