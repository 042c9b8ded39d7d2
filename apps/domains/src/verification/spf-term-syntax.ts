import { isIPv4, isIPv6 } from 'node:net';

/** `[qualifier]name[:argument or /cidr]` (RFC 7208 §4.6.1); a modifier is `name=value` (§6) and is not matched. */
export const MECHANISM = /^([+?~-]?)([a-z][a-z0-9_.-]*)(?![a-z0-9_.-]*=)(?::(.*)|\/.*)?$/;
/** §6: `name=value`; a modifier a receiver does not know is ignored, so any name is fine. */
const MODIFIER = /^[a-z][a-z0-9_.-]*=/;
/** §5: the mechanisms there are; any other name is a syntax error, not a term to skip. */
const KNOWN_MECHANISMS = new Set(['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists']);

/** §5.6: `ip4:<address>[/0-32]`, `ip6:<address>[/0-128]`, nothing left out. */
function isIpNetwork(argument: string | undefined, isAddress: (text: string) => boolean, maxBits: number): boolean {
  const match = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(argument ?? '');
  return match !== null && isAddress(match[1]) && (match[2] === undefined || Number(match[2]) <= maxBits);
}

/** §5.3, §5.4: `a` and `mx` take `[:domain][/ip4-cidr][//ip6-cidr]`; a colon must be followed by a domain. */
const DUAL_CIDR = /^(?::([^/]*))?(?:\/(\d{1,3}))?(?:\/\/(\d{1,3}))?$/;

function isDualCidrArgument(rest: string): boolean {
  const match = DUAL_CIDR.exec(rest);
  if (!match) return false;
  const [, domain, ip4Bits, ip6Bits] = match;
  return domain !== '' && (ip4Bits === undefined || Number(ip4Bits) <= 32) && (ip6Bits === undefined || Number(ip6Bits) <= 128);
}

/**
 * What is wrong with one term of an SPF record (lower-cased), or null when it parses. Receivers parse the whole record
 * before evaluating any of it and stop with a permanent error at a term that does not (RFC 7208 §4.6); the usual slips
 * are a mechanism that does not exist (`ipv4:` for `ip4:`) and an address that is none (`ip4:192.0.2`).
 */
export function spfTermProblem(term: string): string | null {
  if (MODIFIER.test(term)) return null;
  const mechanism = MECHANISM.exec(term);
  const name = mechanism?.[2] ?? '';
  if (!KNOWN_MECHANISMS.has(name)) return `an unknown mechanism '${term}' (RFC 7208 §5 knows all, include, a, mx, ptr, ip4, ip6 and exists)`;
  const argument = mechanism?.[3];
  if (name === 'all' && term.replace(/^[+?~-]/, '') !== 'all') return `'${term}', but all takes no argument (RFC 7208 §5.1)`;
  if (name === 'ip4' && !isIpNetwork(argument, isIPv4, 32)) return `'${term}', which is no IPv4 address or range (RFC 7208 §5.6)`;
  if (name === 'ip6' && !isIpNetwork(argument, isIPv6, 128)) return `'${term}', which is no IPv6 address or range (RFC 7208 §5.6)`;
  // A macro's delimiters may hold a slash (`%{l/}`, §7.1): read as one character, so it is not taken for a prefix.
  const rest = term.replace(/^[+?~-]?[a-z]+/, '').replace(/%\{[^}]*\}/g, 'm');
  if ((name === 'a' || name === 'mx') && !isDualCidrArgument(rest)) return `'${term}', which names no domain after its colon or has too long a prefix (RFC 7208 §5.3, §5.4)`;
  // §5.7: exists needs a domain; §5.5: ptr may leave it out, but not after a colon.
  if ((name === 'exists' && !argument) || (name === 'ptr' && argument === '')) return `'${term}', which names no domain (RFC 7208 §5.5, §5.7)`;
  return null;
}
