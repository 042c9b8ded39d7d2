import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { isHostname } from '../validation/validators';

/** RFC 1035 §2.3.4: a name is at most 255 octets on the wire, 253 characters written out. */
export const MAX_DOMAIN_NAME_LENGTH = 253;

/**
 * What is wrong with a sending domain name, or null when it is fine. The name
 * is judged in the form it is stored in: lower-case, IDN as punycode.
 */
export function domainNameProblem(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw === '') return 'must be a domain name such as example.com';
  if (raw.length > 4 * MAX_DOMAIN_NAME_LENGTH) return `must be at most ${MAX_DOMAIN_NAME_LENGTH} characters`;
  if (raw.endsWith('.')) return 'must not end with a dot';
  if (isIP(raw) || isIP(raw.replace(/^\[|\]$/g, ''))) return 'must be a domain name, not an IP address';
  const ascii = domainToASCII(raw.toLowerCase());
  if (ascii.length > MAX_DOMAIN_NAME_LENGTH) return `must be at most ${MAX_DOMAIN_NAME_LENGTH} characters (in punycode)`;
  if (!ascii || !isHostname(ascii)) return 'must be a valid domain name such as example.com (letters, digits, hyphens and a top-level domain)';
  return null;
}

/** The stored form: lower-case ASCII, internationalized names converted to punycode (UTS #46). */
export function normalizeDomainName(raw: string): string {
  return domainToASCII(raw.toLowerCase());
}
