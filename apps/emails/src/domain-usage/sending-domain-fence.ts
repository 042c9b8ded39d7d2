import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SENDING_DOMAIN_LOCK_CLASS } from './sending-domain-lock';

/**
 * Where a deletion's in-use check and the live sends it crosses meet. Both
 * hold the domain's lock in their transaction: the check exclusively, sends
 * shared. A send that writes first holds the check until it commits, so the
 * check counts its email (in_use); a check that goes first records the
 * deletion, and the sends that found the domain verified before it find the
 * record once they get the lock, and are refused. The two services share no
 * transaction, so this is the one place the order of the two is decided.
 */
@Injectable()
export class SendingDomainFence {
  /**
   * Within the in-use check's transaction, before it counts: waits for every send from the domain writing its
   * email, for waitMs at most (lock_not_available past it).
   */
  async closeForDeletion(manager: EntityManager, name: string, waitMs: number): Promise<void> {
    await manager.query(`SELECT set_config('lock_timeout', $1, true)`, [`${waitMs}ms`]);
    await manager.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [SENDING_DOMAIN_LOCK_CLASS, name]);
  }

  /** The check found nothing on its way: sends that found the domain verified before its deletion must not be accepted. */
  async recordDeletion(manager: EntityManager, domainId: string, name: string): Promise<void> {
    await manager.query('INSERT INTO emails.sending_domain_deletions (domain_id, name) VALUES ($1, $2) ON CONFLICT (domain_id) DO NOTHING', [
      domainId,
      name,
    ]);
  }

  /**
   * Within a send's transaction, before it writes: the ids among `domainIds` whose deletion passed its in-use
   * check. The lock comes first, in a statement of its own: READ COMMITTED reads with the snapshot of the
   * statement's start, and one taken before waiting would miss the record the check committed meanwhile.
   * Locks are taken in one order (shared ones never wait on each other, but on a waiting check they do).
   */
  async deletedAmong(manager: EntityManager, domains: ReadonlyMap<string, string>): Promise<Set<string>> {
    await manager.query(
      `SELECT pg_advisory_xact_lock_shared($1, key) FROM (SELECT DISTINCT hashtext(name) AS key FROM unnest($2::text[]) AS name ORDER BY 1) AS keys`,
      [SENDING_DOMAIN_LOCK_CLASS, [...domains.keys()]],
    );
    const rows: Array<{ domain_id: string }> = await manager.query('SELECT domain_id FROM emails.sending_domain_deletions WHERE domain_id = ANY($1::text[])', [
      [...domains.values()],
    ]);
    return new Set(rows.map((row) => row.domain_id));
  }
}
