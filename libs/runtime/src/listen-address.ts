import { isIPv6 } from 'node:net';

/**
 * The bind addresses that take connections on every interface of the
 * machine (`::` takes IPv4's too, unless the OS is set to IPv6 only).
 */
const EVERY_INTERFACE: readonly string[] = ['0.0.0.0', '::'];

export function listensOnEveryInterface(host: string): boolean {
  return EVERY_INTERFACE.includes(host);
}

/** host:port as a URL or a log line writes it: an IPv6 address in brackets, since `:::3000` names no port. */
export function hostAndPort(host: string, port: number): string {
  return `${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/**
 * Where a server listens, for a log line: the addresses it bound, each
 * marked when it is every interface. Nest's getUrl() named 127.0.0.1 for a
 * gateway bound to 0.0.0.0 and only one of the two a `localhost` binds, so
 * an operator could not tell from the log whether it was reachable from outside.
 * A string (what Node gives for a Unix socket) is its path.
 */
export function describeListeners(addresses: readonly (string | { address: string; port: number })[], scheme?: string): string {
  return addresses.map((bound) => (typeof bound === 'string' ? bound : describeListener(bound, scheme))).join(' and ');
}

function describeListener({ address, port }: { address: string; port: number }, scheme?: string): string {
  return `${scheme ? `${scheme}://` : ''}${hostAndPort(address, port)}${listensOnEveryInterface(address) ? ' (all interfaces)' : ''}`;
}
