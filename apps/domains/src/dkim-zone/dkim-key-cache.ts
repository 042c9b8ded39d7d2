import { Injectable } from '@nestjs/common';
import { parseDkimTargetLabel } from '../domains/dns-records';
import { DomainKeyRow, DomainsRepository } from '../domains/domains.repository';

const FOUND_TTL_MS = 60_000;
const MISSING_TTL_MS = 5_000;
/** While the database is away, how long a stale answer stands before the database is asked again. */
const STALE_RETRY_MS = 5_000;
/** How old a key read may be and still be answered while the database is away (RFC 8767 suggests 1 to 3 days). */
const STALE_MAX_MS = 24 * 60 * 60_000;

interface Entry {
  key: DomainKeyRow | null;
  /** When the database last said so. */
  readAt: number;
  expiresAt: number;
}

/**
 * Public keys for the DNS responder, by zone label. Read through the
 * repository and kept briefly in memory; this replica forgets an entry at once
 * when it adds or deletes the domain, other replicas within FOUND_TTL_MS.
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

  constructor(private readonly repository: DomainsRepository) {}

  async byLabel(label: string): Promise<DomainKeyRow | null> {
    const ref = parseDkimTargetLabel(label);
    if (!ref) return null;
    const key = await this.byId(ref.id);
    return key && key.dkimSelector === ref.dkimSelector ? key : null;
  }

  forget(id: string): void {
    this.entries.delete(id);
  }

  private async byId(id: string): Promise<DomainKeyRow | null> {
    const cached = this.entries.get(id);
    const now = Date.now();
    if (cached && cached.expiresAt > now) return cached.key;
    let key: DomainKeyRow | null;
    try {
      key = await this.repository.findKey(id);
    } catch (error) {
      if (!cached || now - cached.readAt > STALE_MAX_MS) throw error;
      cached.expiresAt = now + STALE_RETRY_MS;
      return cached.key;
    }
    this.entries.delete(id); // re-inserted last, so the bound below evicts the least recently read
    this.entries.set(id, { key, readAt: now, expiresAt: now + (key ? FOUND_TTL_MS : MISSING_TTL_MS) });
    if (this.entries.size > 100_000) this.entries.delete(this.entries.keys().next().value!);
    return key;
  }
}
