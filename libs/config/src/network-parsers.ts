import { isIP } from 'node:net';
import { asUrl, Parser, redactUrl } from './parsers';

/** A DNS server as Node's Resolver.setServers takes it: an IP, or 'ip:port' ('[v6]:port' for IPv6). */
export const asDnsServer: Parser<string> = (raw) => {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(raw);
  const [address, port] = bracketed ? [bracketed[1], bracketed[2]] : isIP(raw) ? [raw, undefined] : raw.split(':');
  const portOk = port === undefined || (/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535);
  if (!isIP(address ?? '') || !portOk) throw new Error(`'${raw}' is not a DNS server (use an IP or ip:port)`);
  return raw;
};

/**
 * The URL of a server to connect to: of the given schemes, and naming a host.
 * `nats://` or `smtp://` parse as URLs (their schemes are not ones WHATWG URL
 * requires a host of) but leave nothing to connect to: the NATS client fails
 * with a bare "Invalid URL" and nodemailer would try localhost.
 */
export function asServerUrl(...protocols: string[]): Parser<string> {
  const url = asUrl(...protocols);
  return (raw) => {
    const value = url(raw);
    if (new URL(value).hostname === '') throw new Error(`must name a host, got '${redactUrl(raw)}'`);
    return value;
  };
}

/** A server URL of the given schemes, or empty for "not set". */
export function asOptionalServerUrl(...protocols: string[]): Parser<string> {
  const url = asServerUrl(...protocols);
  return (raw) => (raw.trim() === '' ? '' : url(raw));
}

/**
 * An address to listen on: an IP (`0.0.0.0`, `::`, `127.0.0.1`) or a host
 * name this machine resolves. Blank or with spaces it can only fail later,
 * in listen(), with a message that names no variable; so can a name whose
 * last label is all digits, which getaddrinfo reads as an IPv4 address
 * written short (`3000` is 0.0.11.184, `1.5` is 1.0.0.5).
 */
export const asListenHost: Parser<string> = (raw) => {
  const value = raw.trim();
  if (isIP(value)) return value;
  if (!/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(value) || /(^|\.)\d+$/.test(value)) throw new Error(`must be an IP address such as 0.0.0.0 or a host name, got '${raw}'`);
  return value;
};

/**
 * A base URL that paths are appended to (the tracking routes /o/… and /c/…):
 * after a query or fragment they would land in it, and credentials would be
 * in every link sent.
 */
export function asBaseUrl(...protocols: string[]): Parser<string> {
  const url = asUrl(...protocols);
  return (raw) => {
    const value = url(raw);
    const { search, hash, username, password } = new URL(value);
    const extra = search ? 'a query (?…)' : hash ? 'a fragment (#…)' : username || password ? 'a user name or password' : undefined;
    if (extra) throw new Error(`must not have ${extra}: the tracking paths are appended to it, got '${redactUrl(value)}'`);
    return value;
  };
}
