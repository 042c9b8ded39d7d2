import { txtRecords } from '../mx/txt-records';
import { stsPolicyId } from './sts-record';

/** What the `_mta-sts` TXT lookup of a domain says: a policy id, no policy, or nothing (the lookup failed). */
export type StsAnnouncement = { kind: 'policy'; id: string } | { kind: 'none' } | { kind: 'failed'; reason: string };

/**
 * Looks up `_mta-sts.<domain>` (RFC 8461 §3.1) through DNS_SERVERS, as MX records are, within one DNS_TIMEOUT_MS.
 * A failed lookup is told apart from an absent record only for the log: either way a cached policy still applies.
 */
export async function discoverStsPolicy(domain: string, servers: string[], timeoutMs: number): Promise<StsAnnouncement> {
  const answer = await txtRecords(`_mta-sts.${domain}`, servers, timeoutMs);
  if (answer.kind !== 'records') return answer;
  const id = stsPolicyId(answer.records);
  return id === null ? { kind: 'none' } : { kind: 'policy', id };
}
