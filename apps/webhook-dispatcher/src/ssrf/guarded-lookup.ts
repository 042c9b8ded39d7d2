import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, LookupFunction } from 'node:net';
import { refusedAddressReason } from '@mailroom/runtime';
import type { HostResolver } from './host-resolver';

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
 * A `lookup` for http(s) agents that resolves the host through `resolver`
 * when the socket connects. With `guard`, it refuses the connection when any
 * address the host resolves to is refused: checking at connect time, on the
 * addresses actually used, is what defeats DNS rebinding (a name that is
 * public when the webhook is created and private when it is called).
 */
export function resolvingLookup(resolver: HostResolver, guard: boolean): LookupFunction {
  return (hostname, options, callback) => {
    const wanted = options as LookupOptions;
    const family = wanted.family === 4 || wanted.family === 6 ? wanted.family : 0;
    resolver.addresses(hostname, family).then(
      (addresses) => {
        const refused = guard ? addresses.map((entry) => refusedAddressReason(entry.address)).find(Boolean) : null;
        if (refused) return callback(new RefusedAddressError(hostname, refused, false), '', 0);
        if (wanted.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
