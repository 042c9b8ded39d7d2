import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SENDING_DOMAIN_LOCK_CLASS } from './sending-domain-lock';

/**
 * Where a deletion's in-use check and the live sends it crosses meet. Both
 * hold the domain's lock in their transaction: the check exclusively, sends
 * shared (in the statement that inserts them). A send that writes first holds the check until it commits, so the
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
   * The query a live send's insert statement carries (EmailsRepository.insertUnless): it takes the shared locks of
   * `domains` (name → id) for the statement's transaction and answers the ids whose deletion passed its in-use
   * check, so nothing is inserted. One round trip, as the insert was before: no transaction of the send's own.
   * Its parameters are appended to `parameters`.
   */
  deletedAmongQuery(domains: ReadonlyMap<string, string>, parameters: unknown[]): string {
    parameters.push(SENDING_DOMAIN_LOCK_CLASS, [...domains.keys()], [...domains.values()]);
    const at = parameters.length;
    return `SELECT id FROM emails.deleted_sending_domains($${at - 2}, $${at - 1}::text[], $${at}::text[]) AS id`;
  }
}
