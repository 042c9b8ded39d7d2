import { Injectable } from '@nestjs/common';
import { parseDkimTargetLabel } from '../domains/dns-records';
import { DomainKeyRow, DomainsRepository } from '../domains/domains.repository';

/** How long a replica answers a domain's keys as it read them: a key made this long ago is answered by every replica. */
export const FOUND_TTL_MS = 60_000;
const MISSING_TTL_MS = 5_000;
/** While the database is away, how long a stale answer stands before the database is asked again. */
const STALE_RETRY_MS = 5_000;
/** How old a key read may be and still be answered while the database is away (RFC 8767 suggests 1 to 3 days). */
const STALE_MAX_MS = 24 * 60 * 60_000;
/**
 * Database reads in flight at once. Labels are the client's to choose and UDP sources are forged at will, so
 * past the rate limit's networks a flood of made-up labels, each a miss, would queue reads (and their queries'
 * buffers) faster than the database answers, without bound. A read takes a millisecond or so and resolvers
 * cache an answer for a minute, so real traffic never comes near.
 */
const MAX_READS_IN_FLIGHT = 100;

/** The database reads in flight are at their bound: a key not in memory gets SERVFAIL. */
export class DkimLookupsBusyError extends Error {
  constructor() {
    super('too many DKIM key reads in flight');
  }
}

interface Entry {
  /** Every key the domain publishes (see DomainsRepository.findKeys); none when it does not exist. */
  keys: DomainKeyRow[];
  /** When the database last said so. */
  readAt: number;
  expiresAt: number;
}

/**
 * Public keys for the DNS responder, by zone label. Read through the
 * repository and kept briefly in memory, all of a domain's keys together; this
 * replica forgets an entry at once when it adds, deletes or rotates the domain
 * (or promotes or purges a key of it), other replicas within FOUND_TTL_MS.
 *
 * While the database cannot be read, an entry read within a day is answered
 * as it was (serve-stale, RFC 8767): a SERVFAIL for a DKIM key makes
 * receivers' DKIM checks temperror, and DMARC then fails for every domain that
 * relies on DKIM alignment, so a database outage would turn into rejected mail
 * everywhere. A domain cannot be deleted or its key changed while the database
 * is away, so the stale answer is the current one.
 */
@Injectable()
export class DkimKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readsInFlight = 0;
  /**
   * forget() calls so far. A read that one overlapped may hold the row as it was before the change (a query racing
   * a delete), so it is answered but not kept: else the deleted key would be answered for FOUND_TTL_MS more.
   */
  private forgets = 0;

  constructor(private readonly repository: DomainsRepository) {}

  async byLabel(label: string): Promise<DomainKeyRow | null> {
    const ref = parseDkimTargetLabel(label);
    if (!ref) return null;
    const keys = await this.byId(ref.id);
    return keys.find((key) => key.dkimSelector === ref.dkimSelector) ?? null;
  }

  forget(id: string): void {
    this.forgets += 1;
    this.entries.delete(id);
  }

  private async byId(id: string): Promise<DomainKeyRow[]> {
    const cached = this.entries.get(id);
    const now = Date.now();
    if (cached && cached.expiresAt > now) return cached.keys;
    // At the bound it fails towards SERVFAIL (the resolver asks again) for keys not in memory, rather than towards
    // memory that grows until the process dies and every key goes unanswered; keys read within the day still answer.
    if (this.readsInFlight >= MAX_READS_IN_FLIGHT) return standIn(cached, now, new DkimLookupsBusyError());
    let keys: DomainKeyRow[];
    const forgetsBefore = this.forgets;
    this.readsInFlight += 1;
    try {
      keys = await this.repository.findKeys(id);
    } catch (error) {
      return standIn(cached, now, error);
    } finally {
      this.readsInFlight -= 1;
    }
    if (this.forgets !== forgetsBefore) return keys;
    this.entries.delete(id); // re-inserted last, so the bound below evicts the least recently read
    this.entries.set(id, { keys, readAt: now, expiresAt: now + (keys.length ? FOUND_TTL_MS : MISSING_TTL_MS) });
    if (this.entries.size > 100_000) this.entries.delete(this.entries.keys().next().value!);
    return keys;
  }
}

/** The key read within the day, answered while the database cannot be asked (asked again after STALE_RETRY_MS); else `failure` is thrown. */
function standIn(cached: Entry | undefined, now: number, failure: unknown): DomainKeyRow[] {
  if (!cached || now - cached.readAt > STALE_MAX_MS) throw failure;
  cached.expiresAt = now + STALE_RETRY_MS;
  return cached.keys;
}
