import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { quotedForMessage } from '@mailroom/errors';
import { parse as parseDomain } from 'tldts';
import { isHostname, stringRule } from '../validation/validators';

/** RFC 1035 §2.3.4: a name is at most 255 octets on the wire, 253 characters written out. */
export const MAX_DOMAIN_NAME_LENGTH = 253;

/**
 * ASCII that has no place in a host name. The conversion to punycode reads its
 * input as a URL's host, so it drops a tab or a newline, decodes %41 and stops
 * at a backslash, a slash, `?` or `#`: without this check `exa%41mple.com` was
 * stored as exaample.com and `example.com/x` as example.com, a name other than
 * the one sent, and `a@x.testü<TAB>x.test` became the recipient
 * a@x.xn--testx-nva.test while nodemailer wrote a@x.test in the To header.
 */
const ASCII_OUTSIDE_HOST_NAMES = /[\x00-\x2c\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]/;

/** The first ASCII character of `raw` that no host name holds, quoted for a message, or null. */
function asciiOutsideHostName(raw: string): string | null {
  const found = ASCII_OUTSIDE_HOST_NAMES.exec(raw);
  return found ? quotedForMessage(found[0]) : null;
}

/**
 * The character of `raw` that the conversion turned into ASCII no host name
 * holds (UTS #46 maps the superscript plus ⁺ to `+`, ⑴ to `(1)`), quoted with
 * what it stands for; null when the converted name `ascii` holds none.
 */
function mappedOutsideHostName(raw: string, ascii: string): string | null {
  if (!ASCII_OUTSIDE_HOST_NAMES.test(ascii)) return null;
  const char = [...raw].find((each) => ASCII_OUTSIDE_HOST_NAMES.test(domainToASCII(each)));
  return char ? `${quotedForMessage(char)} (read as ${quotedForMessage(domainToASCII(char))})` : asciiOutsideHostName(ascii);
}

/**
 * What is wrong with a sending domain name, or null when it is fine. The name
 * is judged in the form it is stored in: lower-case, IDN as punycode.
 */
export function domainNameProblem(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw === '') return 'must be a domain name such as example.com';
  if (raw.length > 4 * MAX_DOMAIN_NAME_LENGTH) return `must be at most ${MAX_DOMAIN_NAME_LENGTH} characters`;
  if (raw.endsWith('.')) return 'must not end with a dot';
  if (isIP(raw) || isIP(raw.replace(/^\[|\]$/g, ''))) return 'must be a domain name, not an IP address';
  const outside = asciiOutsideHostName(raw);
  if (outside) return `must hold only letters, digits, hyphens and dots; ${outside} has no place in a domain name`;
  const ascii = domainToASCII(raw.toLowerCase());
  // IDNA maps the ideographic and fullwidth full stops (。 ． ｡) to '.', so a name a CJK input method ended with one
  // ends with a dot too, and was told it needs "letters, digits, hyphens and a top-level domain" instead.
  if (ascii.endsWith('.')) return 'must not end with a dot';
  const mapped = mappedOutsideHostName(raw, ascii);
  if (mapped) return `must hold only letters, digits, hyphens and dots; ${mapped} has no place in a domain name`;
  if (ascii.length > MAX_DOMAIN_NAME_LENGTH) return `must be at most ${MAX_DOMAIN_NAME_LENGTH} characters (in punycode)`;
  if (!ascii || !isHostname(ascii)) return 'must be a valid domain name such as example.com (letters, digits, hyphens and a top-level domain)';
  return null;
}

/**
 * The longest name a sending domain's owner publishes is its DKIM CNAME,
 * `mrYYYYMM._domainkey.<domain>`: 20 characters before the domain.
 */
const DKIM_HOST_PREFIX_LENGTH = 'mr202611._domainkey.'.length;
export const MAX_SENDING_DOMAIN_NAME_LENGTH = MAX_DOMAIN_NAME_LENGTH - DKIM_HOST_PREFIX_LENGTH;

/**
 * domainNameProblem, and room for the records: a longer name is a valid
 * domain, but its DKIM record's name would not be, so it could never verify.
 */
export function sendingDomainNameProblem(raw: unknown): string | null {
  const problem = domainNameProblem(raw);
  if (problem) return problem;
  const name = normalizeDomainName(raw as string);
  if (isPublicSuffix(name)) return `must be a domain you own: ${name} is a public suffix, under which anyone may register names`;
  if (name.length > MAX_SENDING_DOMAIN_NAME_LENGTH) {
    return `must be at most ${MAX_SENDING_DOMAIN_NAME_LENGTH} characters (in punycode), so that its DKIM record's name (mr…._domainkey.<name>) fits in 253`;
  }
  return null;
}

/** Whether a name (both lower-case, without a trailing dot) is `parent` itself or a name under it. */
export function isAtOrUnder(name: string, parent: string): boolean {
  return name === parent || name.endsWith(`.${parent}`);
}

/**
 * Whether a name is a public suffix in the ICANN section of the Public Suffix
 * List (co.uk, gov.br): nobody owns it, and a DMARC policy or a DKIM key there
 * would speak for every domain registered under it. Private-section suffixes
 * (github.io) are left to their operators, who may send from them.
 */
export function isPublicSuffix(name: string): boolean {
  const parsed = parseDomain(name, { allowPrivateDomains: false });
  return parsed.isIcann === true && parsed.publicSuffix === name;
}

/**
 * The stored form: lower-case ASCII, internationalized names converted to
 * punycode (UTS #46); '' when it cannot be converted, as for a name holding
 * ASCII no host name holds (see ASCII_OUTSIDE_HOST_NAMES).
 */
export function normalizeDomainName(raw: string): string {
  return ASCII_OUTSIDE_HOST_NAMES.test(raw) ? '' : domainToASCII(raw.toLowerCase());
}

/** A DTO rule over a domain name that says exactly what is wrong, through `problemOf` (domainNameProblem or sendingDomainNameProblem). */
export const IsDomainNameBy = (problemOf: (value: unknown) => string | null) =>
  stringRule('isDomainName', (value) => problemOf(value) === null, (value) => problemOf(value) ?? 'is invalid');

/**
 * domainNameProblem over each name of a list (a key's domainRestrictions),
 * saying what is wrong with the first it refuses. isHostname alone judged the
 * name as sent, not as stored: ab⁺cd.example passed and was stored as
 * ab+cd.example. Named isHostname, whose OpenAPI schema describes it.
 */
export const IsEachHostname = () =>
  stringRule(
    'isHostname',
    (value) => domainNameProblem(value) === null,
    (value) => [value].flat().map(domainNameProblem).find((problem) => problem !== null) ?? 'is invalid',
    { each: true },
  );
