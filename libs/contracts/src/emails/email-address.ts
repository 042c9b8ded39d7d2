import { isIP } from 'node:net';
import addressparser from 'nodemailer/lib/addressparser';
import { normalizeDomainName } from '../domains/domain-name';

export interface ParsedAddress {
  /** What the caller wrote, trimmed: kept for the message headers. */
  raw: string;
  name: string;
  /** The bare address as written. */
  address: string;
  /**
   * The bare address as SMTP carries it and Mailroom shows it (envelopeEmailAddress): the local part
   * exactly as written, the domain in lower-case punycode.
   */
  envelope: string;
  /** The bare address in its one compared form (normalizeEmailAddress): recipient keys, suppressions, filters. */
  normalized: string;
  /** Its domain part, lower-case ASCII (punycode for an internationalized name). */
  domain: string;
}

// RFC 5322 dot-atom local part (no quoted strings) and an RFC 1035 host name
// with an alphabetic TLD: stricter than the RFC, as mailbox providers are.
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** A display name of letters and digits separated by single spaces, then `<addr>`. */
const PLAIN_NAMED_ADDRESS = /^([A-Za-z0-9]+(?: [A-Za-z0-9]+)*) <([^<>\s]+)>$/;

/**
 * A domain as SMTP and DNS carry it: an internationalized name (bücher.de)
 * in punycode (xn--bcher-kva.de), as sending domains are stored, so it needs
 * no SMTPUTF8; '' when it cannot be converted. A name already in punycode is
 * checked too: a label such as xn--zz decodes to nothing, so no such domain
 * can exist. Other ASCII names are returned as they are, without the
 * conversion's cost on every address of a send.
 */
function asciiDomain(domain: string): string {
  if (!/[^\x00-\x7f]|xn--/i.test(domain)) return domain;
  return normalizeDomainName(domain);
}

/**
 * An address as it is sent to: the domain, which DNS and SMTP compare without
 * regard to case, in lower-case punycode; the local part exactly as written,
 * since RFC 5321 §2.4 leaves its case to the receiving host, which may tell
 * `Ann` from `ann`, and a relay must keep it.
 */
export function envelopeEmailAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 0) return address;
  const domain = address.slice(at + 1);
  return `${address.slice(0, at)}@${(asciiDomain(domain) || domain).toLowerCase()}`;
}

/**
 * An address in the one form it is compared in: lower-case, with an
 * internationalized domain in punycode, so `Ann@Bücher.de` and
 * `ann@xn--bcher-kva.de` are one recipient and one suppression. Mailbox
 * providers treat a local part's case as one mailbox, and a suppression must
 * hold whatever spelling a later send uses; the address is still sent to as
 * written (envelopeEmailAddress).
 */
export function normalizeEmailAddress(address: string): string {
  return envelopeEmailAddress(address).toLowerCase();
}

/**
 * An address mailbox providers accept: an ASCII local part (no SMTPUTF8) and
 * a host name, which may be internationalized (it is sent in punycode).
 */
export function isStrictEmailAddress(address: string): boolean {
  if (address.length > 254) return false;
  const at = address.lastIndexOf('@');
  if (at <= 0) return false;
  const local = address.slice(0, at);
  const domain = asciiDomain(address.slice(at + 1));
  if (local.length + 1 + domain.length > 254) return false;
  if (local.length > 64 || !LOCAL_PART.test(local)) return false;
  if (domain.length > 253) return false;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) return false;
  return /^[A-Za-z]{2,63}$|^xn--[A-Za-z0-9-]{1,59}$/.test(labels[labels.length - 1]);
}

/**
 * Parses one `addr` or `Name <addr>` with nodemailer's parser (the one that
 * later writes the header), then checks the address strictly. Returns null
 * for anything that is not exactly one valid address.
 */
export function parseEmailAddress(value: string): ParsedAddress | null {
  const raw = value.trim();
  if (!raw || /[\r\n]/.test(raw)) return null;
  // The common shapes, `addr` and `Plain Name <addr>`, hold none of the
  // parser's operators (quotes, commas, comments, groups), so it would hand
  // back the same name and address; skipping it saves most of the cost.
  if (isStrictEmailAddress(raw)) return toParsed(raw, '', raw);
  const named = PLAIN_NAMED_ADDRESS.exec(raw);
  if (named && isStrictEmailAddress(named[2])) return toParsed(raw, named[1], named[2]);
  const parsed = addressparser(raw);
  if (parsed.length !== 1) return null;
  const entry = parsed[0] as { name: string; address?: string; group?: unknown };
  if (entry.group || !entry.address || !isStrictEmailAddress(entry.address)) return null;
  // The parser drops the quotes of a quoted local part and may take the text
  // before them for a name (`ceo."smith"@y.com` gives smith@y.com): an address
  // that does not stand in the input as written is not the one the caller meant.
  if (!raw.includes(entry.address)) return null;
  if (!isOneMailbox(raw, entry.address)) return null;
  return toParsed(raw, entry.name, entry.address);
}

/** Quoted strings and (non-nested) comments, where `@`, `<` and `>` are only text. */
const QUOTED_OR_COMMENT = /"(?:[^"\\]|\\.)*"|\((?:[^()\\]|\\.)*\)/g;
/** Outside them: words, then the one `<addr>` that ends the input; or, with the address taken out, words alone. */
const NAME_ADDR = /^[^<>@]*<([^<>]*)>\s*$/;
const WORDS = /^[^<>@]*$/;

/**
 * Whether the input has the shape of one mailbox (RFC 5322 §3.4): an unquoted
 * display name is words, without `@`, `<` or `>`. nodemailer's parser takes the
 * first `<addr>` and folds any other text into the name, so
 * `Ann <x@acme.com> <ceo@bank.example>` would go out as
 * `"Ann ceo@bank.example" <x@acme.com>`: a name that shows the reader an
 * address of a domain nobody verified. Without angle brackets it takes one
 * address and makes the other words the name, so `x@acme.com ceo@bank.example`
 * would go out as `"ceo@bank.example" <x@acme.com>`: beside a bare address
 * the rest must be words too, apart from it (`a@x.testü x.test` is no address
 * a@x.test named "ü x.test"). A quoted name may hold anything.
 */
function isOneMailbox(raw: string, address: string): boolean {
  const unquoted = raw.replace(QUOTED_OR_COMMENT, ' ');
  const angled = NAME_ADDR.exec(unquoted);
  // Only the address between the brackets: the parser made `<@x.com a@acme.com>` a@acme.com named "@x.com".
  if (angled) return angled[1].trim() === address;
  const at = unquoted.indexOf(address);
  return at >= 0 && standsAlone(unquoted, at, address.length) && WORDS.test(unquoted.replace(address, ' '));
}

/** Whether text[at, at + length) has whitespace, a list separator the parser skips, or an end of the text on either side. */
function standsAlone(text: string, at: number, length: number): boolean {
  const apart = (char: string) => char === '' || /[\s,;]/.test(char);
  return apart(text.charAt(at - 1)) && apart(text.charAt(at + length));
}

/** A dot-atom local part with UTF-8 beyond ASCII (RFC 6532 §3.2), as only an SMTPUTF8 server takes it. */
const UTF8_LOCAL_PART = /^[^\s"(),.:;<>@[\\\]\x00-\x1f\x7f]+(\.[^\s"(),.:;<>@[\\\]\x00-\x1f\x7f]+)*$/;
const QUOTED_LOCAL_PART = /^"(?:[^"\\\r\n]|\\.)+"$/;
const DOMAIN_LITERAL = /^\[(?:IPv6:)?([^[\]]+)\]$/i;

/**
 * Why an address parseEmailAddress refused is one RFC 5321 allows but
 * Mailroom does not send to, or null when it is simply not an address: so
 * that `zoë@example.com` is told it needs SMTPUTF8, not that it is invalid.
 */
export function unsupportedAddressForm(value: string): string | null {
  const address = (/<([^<>]*)>\s*$/.exec(value)?.[1] ?? value).trim();
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  const literal = DOMAIN_LITERAL.exec(domain);
  if (literal && isIP(literal[1])) return 'its domain is an IP address literal; use a host name';
  if (!isStrictEmailAddress(`x@${domain}`)) return null;
  if (QUOTED_LOCAL_PART.test(local)) return 'its local part is quoted; only a dot-atom local part (letters, digits, dots and !#$%&\'*+/=?^_`{|}~-) is sent';
  if (/[^\x00-\x7f]/.test(local) && UTF8_LOCAL_PART.test(local)) {
    return 'its local part (before the @) is not ASCII, which needs SMTPUTF8 (RFC 6531), and Mailroom sends without it; only the domain may be internationalized';
  }
  return null;
}

function toParsed(raw: string, name: string, address: string): ParsedAddress {
  const envelope = envelopeEmailAddress(address);
  const normalized = envelope.toLowerCase();
  return { raw, name, address, envelope, normalized, domain: normalized.slice(normalized.lastIndexOf('@') + 1) };
}
