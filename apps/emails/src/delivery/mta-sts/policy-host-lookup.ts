import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { DnsDeadline, lookupChannel, refusedAddressReason } from '@mailroom/runtime';
import { hostAddresses } from '../mx/host-addresses';

/**
 * A `lookup` for the policy fetch that resolves `mta-sts.<domain>` as MX hosts are resolved: through DNS_SERVERS
 * within DNS_TIMEOUT_MS, and, unless DELIVERY_ALLOW_PRIVATE_MX, never to a non-public address (a recipient domain's
 * DNS is anyone's to write, and must not aim an HTTPS request at the hosts around us). Checked when the socket
 * connects, on the addresses it uses.
 */
export function policyHostLookup(servers: string[], timeoutMs: number, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    const wanted = options as LookupOptions;
    void addressesOf(hostname, servers, timeoutMs).then(
      (found) => {
        const usable = found.filter((entry) => (wanted.family === 4 || wanted.family === 6 ? entry.family === wanted.family : true));
        const refused = allowPrivate ? null : usable.map((entry) => refusedAddressReason(entry.address)).find(Boolean);
        if (refused) return callback(Object.assign(new Error(`${hostname} resolves to ${refused}, which this server does not connect to`), { code: 'EREFUSEDADDRESS' }), '', 0);
        if (!usable.length) return callback(Object.assign(new Error(`${hostname} has no address record`), { code: 'ENOTFOUND' }), '', 0);
        if (wanted.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, usable);
        callback(null, usable[0].address, usable[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** The host's addresses, as an MX host's are found (hostAddresses), with their families. */
async function addressesOf(name: string, servers: string[], timeoutMs: number): Promise<LookupAddress[]> {
  const channel = lookupChannel(servers, timeoutMs);
  const deadline = new DnsDeadline(channel, timeoutMs);
  try {
    const { addresses } = await hostAddresses(name, channel, deadline);
    return addresses.map((address) => ({ address, family: isIP(address) }));
  } finally {
    deadline.end();
  }
}
