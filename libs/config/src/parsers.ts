import { isIP } from 'node:net';
import { isMappedWithIpv4Prefix } from '@mailroom/contracts';

/** A parser turns a raw environment string into a value or throws a message that says what is wrong. */
export type Parser<T> = (raw: string) => T;

export const asString: Parser<string> = (raw) => raw;

/**
 * A path or name that must not be blank (a blank one would silently mean the current directory). White space
 * around it goes, as around every value: a line break left by a secrets file named another directory.
 */
export const asNonBlank: Parser<string> = (raw) => {
  const value = raw.trim();
  if (value === '') throw new Error(`must not be blank, got '${raw}'`);
  return value;
};

export function asInteger(min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> {
  return (raw) => {
    if (!/^-?\d+$/.test(raw.trim())) throw new Error(`must be an integer, got '${raw}'`);
    const value = Number(raw);
    if (value < min || value > max) throw new Error(`must be between ${min} and ${max}, got ${value}`);
    return value;
  };
}

export const asBoolean: Parser<boolean> = (raw) => {
  const value = raw.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  throw new Error(`must be true or false, got '${raw}'`);
};

export function asOneOf<T extends string>(...allowed: T[]): Parser<T> {
  return (raw) => {
    const value = raw.trim();
    if (!(allowed as string[]).includes(value)) throw new Error(`must be one of ${allowed.join(', ')}, got '${escapeControls(raw)}'`);
    return value as T;
  };
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;

/** Shows a line break as \n, so the message stays on one line and says what is there. */
const escapeControls = (text: string) => text.replace(new RegExp(CONTROL_CHARACTER, 'g'), (char) => JSON.stringify(char).slice(1, -1));

/**
 * WHATWG URL ignores white space around a URL and drops tabs and line breaks
 * inside it without a word, so the checks below passed a value the clients
 * then read differently (node-postgres took ' postgres://…' for a database of
 * that name). White space around is trimmed, as the other parsers do; a tab
 * or line break inside is refused.
 */
export function asUrl(...protocols: string[]): Parser<string> {
  return (untrimmed) => {
    const raw = untrimmed.trim();
    if (CONTROL_CHARACTER.test(raw)) throw new Error(`must not contain tabs or line breaks, got '${escapeControls(redactUrl(raw))}'`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new Error(`must be a URL, got '${redactUrl(raw)}'`);
    }
    if (protocols.length && !protocols.includes(url.protocol.replace(/:$/, ''))) {
      throw new Error(`must use ${protocols.join(' or ')}, got '${url.protocol}'`);
    }
    // The clients take port 0 as it is written (node-postgres, nodemailer and nats.js all connect to it), and fail
    // at the first connection with ECONNREFUSED or EADDRNOTAVAIL, naming no variable.
    if (url.port === '0') throw new Error(`must not use port 0 (nothing can be reached on it), got '${redactUrl(raw)}'`);
    // The clients percent-decode these when they connect; a bare % failed there ("URI malformed", naming no variable).
    if (!decodes(url.username) || !decodes(url.password)) {
      throw new Error(`must have its user name and password percent-encoded (write % as %25, @ as %40, / as %2F), got '${redactUrl(raw)}'`);
    }
    return raw;
  };
}

/** A comma-separated list; blank is no items, but an empty item (a doubled or trailing comma) is refused, not dropped. */
export function asList<T>(item: Parser<T>): Parser<T[]> {
  return (raw) => {
    if (raw.trim() === '') return [];
    return raw
      .split(',')
      .map((part) => part.trim())
      .map((part, index) => {
        try {
          if (part === '') throw new Error('is empty (remove the extra comma)');
          return item(part);
        } catch (error) {
          throw new Error(`item ${index + 1}: ${(error as Error).message}`);
        }
      });
  };
}

/** An IP address or CIDR range, IPv4 or IPv6. */
export const asIpOrCidr: Parser<string> = (raw) => {
  const [address, prefix, extra] = raw.split('/');
  const family = isIP(address);
  const maxPrefix = family === 4 ? 32 : 128;
  const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
  if (!family || !prefixOk || extra !== undefined) throw new Error(`'${raw}' is not an IP address or CIDR range`);
  return raw;
};

/**
 * A proxy's address or range for TRUSTED_PROXIES. Not a /0: Fastify's proxy-addr refuses it when the gateway boots
 * ("invalid range on address"), and a proxy in front owns some range narrower than the whole address space.
 */
export const asProxyRange: Parser<string> = (raw) => {
  const range = asIpOrCidr(raw);
  if (/\/0+$/.test(range)) throw new Error(`'${raw}' trusts every address; name the proxies' own addresses or ranges`);
  // proxy-addr matches no client, IPv4 or mapped, with such a range: every X-Forwarded-For would be ignored without a word.
  if (isMappedWithIpv4Prefix(range)) throw new Error(`'${raw}' counts its prefix in IPv6 bits, so it trusts no proxy at all; write it as IPv4 ('10.0.0.0/8'), or with a prefix of 96 or more`);
  return range;
};

/**
 * Never echo credentials from a connection string into an error message.
 * Everything between the scheme and the last `@` goes: a string that did not
 * parse may hold an unencoded `/` or `@` in its password, or lack its `//`.
 * So does the query string, where node-postgres also takes a password.
 */
export function redactUrl(raw: string): string {
  const at = raw.lastIndexOf('@');
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(raw)?.[0] ?? '';
  const withoutUserinfo = at === -1 ? raw : `${scheme}***${raw.slice(at)}`;
  const query = withoutUserinfo.indexOf('?');
  return query === -1 ? withoutUserinfo : `${withoutUserinfo.slice(0, query)}?***`;
}
