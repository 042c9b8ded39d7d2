import { isIP } from 'node:net';
import { asUrl, Parser } from './parsers';

/** A DNS server as Node's Resolver.setServers takes it: an IP, or 'ip:port' ('[v6]:port' for IPv6). */
export const asDnsServer: Parser<string> = (raw) => {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(raw);
  const [address, port] = bracketed ? [bracketed[1], bracketed[2]] : isIP(raw) ? [raw, undefined] : raw.split(':');
  const portOk = port === undefined || (/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535);
  if (!isIP(address ?? '') || !portOk) throw new Error(`'${raw}' is not a DNS server (use an IP or ip:port)`);
  return raw;
};

/** A URL of the given schemes, or empty for "not set". */
export function asOptionalUrl(...protocols: string[]): Parser<string> {
  const url = asUrl(...protocols);
  return (raw) => (raw.trim() === '' ? '' : url(raw));
}
