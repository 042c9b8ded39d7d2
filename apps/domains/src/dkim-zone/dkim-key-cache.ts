import { Injectable } from '@nestjs/common';
import { parseDkimTargetLabel } from '../domains/dns-records';
import { DomainKeyRow, DomainsRepository } from '../domains/domains.repository';

const FOUND_TTL_MS = 60_000;
const MISSING_TTL_MS = 5_000;

/**
 * Public keys for the DNS responder, by zone label. Read through the
 * repository and kept briefly in memory; this replica forgets an entry at once
 * when it adds or deletes the domain, other replicas within FOUND_TTL_MS.
 */
@Injectable()
export class DkimKeyCache {
  private readonly entries = new Map<string, { key: DomainKeyRow | null; expiresAt: number }>();

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
    if (cached && cached.expiresAt > Date.now()) return cached.key;
    const key = await this.repository.findKey(id);
    this.entries.set(id, { key, expiresAt: Date.now() + (key ? FOUND_TTL_MS : MISSING_TTL_MS) });
    if (this.entries.size > 100_000) this.entries.delete(this.entries.keys().next().value!);
    return key;
  }
}
