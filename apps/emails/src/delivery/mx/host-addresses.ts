import type { RecordWithTtl } from 'node:dns';
import type { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { DnsDeadline } from '@mailroom/runtime';

export interface HostAddresses {
  addresses: string[];
  ttlSeconds: number;
  /** One address family's lookup failed: the addresses are the other family's alone. */
  partial: boolean;
}

const NO_DATA = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * A host's A and AAAA records, through `channel` within `deadline` (an MX host, an MTA-STS policy host). When one
 * family's lookup fails and the other found addresses, those are used, as Postfix does: resolvers and middleboxes
 * that drop or SERVFAIL AAAA queries are common, and the host is reachable over IPv4 all the same. A failure with
 * nothing found fails; a name with no record of either family answers no address.
 */
export async function hostAddresses(name: string, channel: Resolver, deadline: DnsDeadline): Promise<HostAddresses> {
  if (isIP(name)) return { addresses: [name], ttlSeconds: Infinity, partial: false };
  const lookup = (query: Promise<RecordWithTtl[]>) =>
    deadline.within(name, query).catch((error: NodeJS.ErrnoException) => (NO_DATA.has(error.code ?? '') ? [] : Promise.reject(error)));
  const families = await Promise.allSettled([lookup(channel.resolve4(name, { ttl: true })), lookup(channel.resolve6(name, { ttl: true }))]);
  const records = families.flatMap((family) => (family.status === 'fulfilled' ? family.value : []));
  const failed = families.find((family): family is PromiseRejectedResult => family.status === 'rejected');
  if (failed && !records.length) throw failed.reason;
  return { addresses: records.map((record) => record.address), ttlSeconds: Math.min(...records.map((record) => record.ttl)), partial: failed !== undefined };
}
