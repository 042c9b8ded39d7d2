import { isIP } from 'node:net';
import { asList, Parser } from './parsers';
import { asListenHost } from './network-parsers';

export interface BindAddress {
  host: string;
  port: number;
}

/** host:port to listen on, or `off` to disable the listener. Port 0 picks a free port. */
export const asBindAddressOrOff: Parser<BindAddress | null> = (raw) => {
  const value = raw.trim();
  if (['off', 'none', 'false', 'disabled'].includes(value.toLowerCase())) return null;
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(value);
  if (!match || Number(match[2]) > 65535 || !listensOn(match[1])) throw new Error(`must be host:port or off, got '${raw}'`);
  return { host: match[1].replace(/^\[|\]$/g, ''), port: Number(match[2]) };
};

/** An IPv6 address in brackets, or what HOST takes: a host with a space or an all-digit last label failed only at bind. */
function listensOn(host: string): boolean {
  if (host.startsWith('[')) return isIP(host.slice(1, -1)) === 6;
  try {
    asListenHost(host);
    return true;
  } catch {
    return false;
  }
}

/**
 * A DNS zone or host name: lower-case labels, no trailing dot. The last label
 * is not all digits (RFC 3696 §2): such a name is an IPv4 address written
 * short, or a bare one where an address literal was meant.
 */
export const asDnsName: Parser<string> = (raw) => {
  const value = raw.trim().toLowerCase();
  const labels = value.split('.');
  const numericTopLabel = /^\d+$/.test(labels[labels.length - 1]);
  if (value.length > 253 || labels.length < 2 || numericTopLabel || labels.some((label) => !/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(label))) {
    throw new Error(`'${raw}' is not a DNS name such as dkim.mailroom.example.com (no trailing dot)`);
  }
  return value;
};

/**
 * The label a domain's key is published under in DKIM_ZONE, `mr202611-<26-character id>` (dkimTargetLabel in the
 * domains app), and the dot after it.
 */
const DKIM_KEY_LABEL_CHARACTERS = 35 + 1;

/**
 * DKIM_ZONE: a DNS name with room under it for the key labels. A zone over 217 characters made every DKIM CNAME
 * target longer than a DNS name can be (253), so no domain could ever verify, and nothing said why.
 */
export const asDkimZone: Parser<string> = (raw) => {
  const zone = asDnsName(raw);
  const longest = 253 - DKIM_KEY_LABEL_CHARACTERS;
  if (zone.length > longest) {
    throw new Error(`must be at most ${longest} characters (got ${zone.length}): each key is published as a 35-character label under it, and a DNS name holds at most 253`);
  }
  return zone;
};

/** DMARC aggregate report address: `mailto:` URI or a bare address; `none` (or unset) sends no rua. */
export const asOptionalMailto: Parser<string | null> = (raw) => {
  const value = raw.trim();
  if (value === '' || value.toLowerCase() === 'none') return null;
  const address = value.replace(/^mailto:/i, '');
  if (!/^[^\s@;,]+@[^\s@;,]+\.[^\s@;,]+$/.test(address)) throw new Error(`must be an email address or mailto: URI, got '${raw}'`);
  return `mailto:${address}`;
};

/** A bare email address, or empty for none. */
export const asOptionalAddress: Parser<string> = (raw) => {
  const value = raw.trim();
  if (value !== '' && !/^[^\s@;,<>]+@[^\s@;,<>]+\.[^\s@;,<>]+$/.test(value)) throw new Error(`must be an email address such as tls-reports@example.com, or empty, got '${raw}'`);
  return value;
};

/** 32 random bytes, base64: the AES-256-GCM key for secrets at rest. Empty means unset (refused in production at boot). */
export const asEncryptionKey: Parser<string | null> = (raw) => (raw.trim() === '' ? null : asKeyBytes(raw));

/** The keys ENCRYPTION_KEY replaced (ENCRYPTION_KEY_PREVIOUS), each as ENCRYPTION_KEY is written. */
export const asEncryptionKeyList: Parser<string[]> = asList(asKeyBytes);

function asKeyBytes(raw: string): string {
  const value = raw.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || Buffer.from(value, 'base64').length !== 32) {
    throw new Error('must be 32 bytes in base64 (generate one with: openssl rand -base64 32)');
  }
  return value;
}

/**
 * The name Mailroom gives in EHLO, or empty for the machine's hostname. RFC
 * 5321 §4.1.1.1 wants a fully qualified domain name or an address literal
 * (`[192.0.2.1]`, `[IPv6:2001:db8::1]`); receivers that check it (Postfix's
 * reject_invalid_helo_hostname) refuse anything else, so a typo is caught at
 * boot rather than as deferred mail.
 */
export const asHeloName: Parser<string> = (raw) => {
  const value = raw.trim();
  if (value === '') return '';
  const literal = /^\[(?:IPv6:)?([0-9A-Fa-f.:]+)\]$/.exec(value);
  if (literal && isIP(literal[1])) return value;
  try {
    return asDnsName(value);
  } catch {
    throw new Error(`must be a fully qualified host name such as mail.example.com or an address literal such as [192.0.2.1], got '${raw}'`);
  }
};
