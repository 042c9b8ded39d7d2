import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ulid } from '@mailroom/database';
import { DkimKeyEntity } from '../database/entities/dkim-key.entity';
import type { DomainEntity } from '../database/entities/domain.entity';

/** A key pair as stored: the public key and the private key sealed for its domain. */
export interface StoredKey {
  selector: string;
  publicKey: string;
  privateKeySealed: string;
}

/**
 * The domain's keys besides its active one (see DkimKeyEntity). The methods that take a manager run inside
 * DomainsRepository.updateLocked, under the domain row's lock, so a rotation, a promotion and a purge of one
 * domain never interleave.
 */
@Injectable()
export class DkimKeysRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  findPending(domainId: string, manager: EntityManager = this.dataSource.manager): Promise<DkimKeyEntity | null> {
    return manager.getRepository(DkimKeyEntity).findOneBy({ domainId, status: 'pending' });
  }

  /** Every selector the domain has had: the active one and those of this table, retired ones included. */
  async usedSelectors(manager: EntityManager, domain: Pick<DomainEntity, 'id' | 'dkimSelector'>): Promise<Set<string>> {
    const rows = await manager.getRepository(DkimKeyEntity).find({ where: { domainId: domain.id }, select: { selector: true } });
    return new Set([domain.dkimSelector, ...rows.map((row) => row.selector)]);
  }

  /** A new pending key, or the pending one given its new key pair (same selector, a fresh schedule). */
  async savePending(manager: EntityManager, domainId: string, existing: DkimKeyEntity | null, key: StoredKey, now: Date): Promise<DkimKeyEntity> {
    const pending = Object.assign(existing ?? new DkimKeyEntity(), {
      id: existing?.id ?? `dkey_${ulid()}`,
      domainId,
      status: 'pending',
      selector: key.selector,
      publicKey: key.publicKey,
      privateKeySealed: key.privateKeySealed,
      checkAttempts: 0,
      createdAt: now,
      retireAfter: null,
    } satisfies DkimKeyEntity);
    return manager.getRepository(DkimKeyEntity).save(pending);
  }

  async countCheck(manager: EntityManager, pending: DkimKeyEntity): Promise<void> {
    await manager.getRepository(DkimKeyEntity).update({ id: pending.id }, { checkAttempts: pending.checkAttempts + 1 });
  }

  /** The pending key goes (it becomes the active one, on the domain row); the key it replaces is published until `retireAfter`. */
  async retireReplaced(manager: EntityManager, pending: DkimKeyEntity, replaced: StoredKey, now: Date, retireAfter: Date): Promise<void> {
    await manager.getRepository(DkimKeyEntity).delete({ id: pending.id });
    await manager.getRepository(DkimKeyEntity).insert({
      id: `dkey_${ulid()}`,
      domainId: pending.domainId,
      status: 'retiring',
      selector: replaced.selector,
      publicKey: replaced.publicKey,
      privateKeySealed: replaced.privateKeySealed,
      checkAttempts: 0,
      createdAt: now,
      retireAfter,
    });
  }

  /**
   * Forgets the keys of retiring rows past their retire_after (the zone answers NXDOMAIN for them from then on);
   * their selectors stay, as `retired`, so none is handed out again. Answers the domains whose keys went.
   */
  async retireDue(now: Date): Promise<string[]> {
    const result: unknown = await this.dataSource.query(
      `UPDATE domains.dkim_keys SET status = 'retired', public_key = NULL, private_key_sealed = NULL
        WHERE status = 'retiring' AND retire_after <= $1
        RETURNING domain_id`,
      [now],
    );
    // TypeORM's Postgres driver answers an UPDATE … RETURNING as [rows, rowCount], not as the rows.
    const rows = (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as Array<{ domain_id: string }>;
    return [...new Set(rows.map((row) => row.domain_id))];
  }
}
