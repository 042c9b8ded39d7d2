import { lookup as dnsLookup, LookupAddress, LookupOptions } from 'node:dns';
import { isIP, LookupFunction } from 'node:net';
import { refusedAddressReason } from '@mailroom/runtime';

/**
 * Raised when a webhook host is, or resolves to, a refused address. The
 * message, which the webhook's owner reads in its attempt log, names the kind
 * of address and never the address a name resolved to: the resolver may be an
 * internal one (split-horizon DNS), and a key holder must not map the network
 * by pointing webhooks at names and reading what they resolve to.
 */
export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
  constructor(host: string, reason: string, literal: boolean) {
    super(`refused to connect to ${host}: ${literal ? 'it is' : 'it resolves to'} ${reason}`);
    this.name = 'RefusedAddressError';
  }
}

/** Throws when an IP literal is refused (Node never calls `lookup` for a literal, so it is checked here). */
export function assertLiteralAllowed(host: string): void {
  const bare = host.replace(/^\[|\]$/g, '');
  if (!isIP(bare)) return;
  const reason = refusedAddressReason(bare);
  if (reason) throw new RefusedAddressError(host, reason, true);
}

/**
 * A `lookup` for http(s) agents that resolves the host when the socket
 * connects and refuses the connection when any address it resolves to is
 * refused. Checking at connect time, on the addresses actually used, is
 * what defeats DNS rebinding (a name that is public when the webhook is
 * created and private when it is called).
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, Object.assign({}, options as LookupOptions, { all: true as const }), (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.map((entry) => ({ entry, reason: refusedAddressReason(entry.address) })).find((item) => item.reason);
    if (refused) return callback(new RefusedAddressError(hostname, refused.reason as string, false), '', 0);
    if ((options as LookupOptions).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    callback(null, first.address, first.family);
  });
};
