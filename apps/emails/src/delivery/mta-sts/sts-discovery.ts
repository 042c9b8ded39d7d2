import { DnsDeadline, lookupChannel } from '@mailroom/runtime';
import { stsPolicyId } from './sts-record';

/** What the `_mta-sts` TXT lookup of a domain says: a policy id, no policy, or nothing (the lookup failed). */
export type StsAnnouncement = { kind: 'policy'; id: string } | { kind: 'none' } | { kind: 'failed'; reason: string };

const NO_DATA = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * Looks up `_mta-sts.<domain>` (RFC 8461 §3.1) through DNS_SERVERS, as MX records are, within one DNS_TIMEOUT_MS.
 * A failed lookup is told apart from an absent record only for the log: either way a cached policy still applies.
 */
export async function discoverStsPolicy(domain: string, servers: string[], timeoutMs: number): Promise<StsAnnouncement> {
  const channel = lookupChannel(servers, timeoutMs);
  const deadline = new DnsDeadline(channel, timeoutMs);
  try {
    const id = stsPolicyId(await deadline.within(`_mta-sts.${domain}`, channel.resolveTxt(`_mta-sts.${domain}`)));
    return id === null ? { kind: 'none' } : { kind: 'policy', id };
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return NO_DATA.has(code ?? '') ? { kind: 'none' } : { kind: 'failed', reason: code ?? message };
  } finally {
    deadline.end();
  }
}
