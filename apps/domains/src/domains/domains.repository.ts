import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { DomainStatus, ListParams } from '@mailroom/contracts';
import { KeysetPage, keysetPageInOneSnapshot, resealInBatches, ResealOutcome, Sealer } from '@mailroom/database';
import { appendEvents, NewEvent } from '@mailroom/outbox';
import { DomainEntity } from '../database/entities/domain.entity';
import { domainRowChange } from './domain-row-change';

export interface DomainKeyRow {
  id: string;
  name: string;
  dkimSelector: string;
  dkimPublicKey: string;
}

const UNIQUE_VIOLATION = '23505';

/** Each domain's active key (on its row) and the keys of its rotation that are published beside it. */
const PUBLISHED_KEYS = `
  SELECT d.id, d.name, k.selector AS "dkimSelector", k.public_key AS "dkimPublicKey"
    FROM domains.domains d
    CROSS JOIN LATERAL (
      SELECT d.dkim_selector AS selector, d.dkim_public_key AS public_key
      UNION ALL
      SELECT selector, public_key FROM domains.dkim_keys WHERE domain_id = d.id AND status IN ('pending', 'retiring')
    ) k`;

@Injectable()
export class DomainsRepository {
  constructor(
    @InjectRepository(DomainEntity) private readonly repository: Repository<DomainEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** Returns false when the name is taken (the unique index decides, so two replicas cannot both add it). */
  async insert(entity: DomainEntity): Promise<boolean> {
    try {
      await this.repository.insert(entity);
      return true;
    } catch (error) {
      if ((error as { driverError?: { code?: string } }).driverError?.code === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  /**
   * Seals each DKIM private key (the domain id as context) again under the current key where a previous one opens
   * it: the active keys on the domain rows, then the pending and retiring ones of rotations.
   */
  async resealDkimKeys(sealer: Sealer, stopped: () => boolean): Promise<ResealOutcome> {
    const active = await resealInBatches(this.dataSource, sealer, { table: 'domains.domains', columns: ['dkim_private_key_sealed'] }, stopped);
    const others = await resealInBatches(this.dataSource, sealer, { table: 'domains.dkim_keys', columns: ['private_key_sealed'], context: 'domain_id' }, stopped);
    return { resealed: active.resealed + others.resealed, remaining: active.remaining + others.remaining, unreadable: active.unreadable + others.unreadable };
  }

  findById(id: string): Promise<DomainEntity | null> {
    return this.repository.findOneBy({ id });
  }

  findByName(name: string): Promise<DomainEntity | null> {
    return this.repository.findOneBy({ name });
  }

  /** restrictedTo: the caller's domainRestrictions; empty means every domain. */
  list(params: ListParams, status: DomainStatus | undefined, restrictedTo: string[]): Promise<KeysetPage<DomainEntity>> {
    const build = (manager: EntityManager) => {
      const query = manager.createQueryBuilder(DomainEntity, 'd').where('TRUE');
      if (status) query.andWhere('d.status = :status', { status });
      if (restrictedTo.length) query.andWhere('d.name = ANY(:names)', { names: restrictedTo });
      return query;
    };
    return keysetPageInOneSnapshot(this.repository.manager.connection, build, 'd.id', params);
  }

  /** False when there was nothing to delete: another request deleted it first. */
  async delete(id: string): Promise<boolean> {
    return ((await this.repository.delete({ id })).affected ?? 0) > 0;
  }

  /**
   * Changes one domain under a row lock and writes its events into the outbox
   * in the same transaction, so a status change and its event commit together.
   * `updatedAt` moves only when the domain itself changed (see domainRowChange). `change` gets the transaction,
   * to hand on to DkimKeysRepository for the domain's other keys, which the row lock guards too.
   */
  async updateLocked(id: string, change: (entity: DomainEntity, manager: EntityManager) => NewEvent[] | Promise<NewEvent[]>): Promise<DomainEntity | null> {
    return this.dataSource.transaction(async (manager) => {
      const entity = await manager.getRepository(DomainEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!entity) return null;
      const before = { ...entity };
      const events = await change(entity, manager);
      const changed = domainRowChange(before, entity);
      if (changed === 'domain') entity.updatedAt = new Date();
      if (changed !== 'none') await manager.getRepository(DomainEntity).save(entity);
      await appendEvents(manager, 'domains', events);
      return entity;
    });
  }

  /**
   * Claims due domains for a background check by moving their next check one
   * lease ahead; SKIP LOCKED lets replicas claim disjoint sets. A replica that
   * dies mid-check leaves the domain due again when the lease runs out.
   */
  async claimDue(now: Date, leaseMs: number, limit: number): Promise<string[]> {
    const result: unknown = await this.dataSource.query(
      `UPDATE domains.domains SET next_check_at = $2
        WHERE id IN (
          SELECT id FROM domains.domains
           WHERE next_check_at <= $1
           ORDER BY next_check_at LIMIT $3
           FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      [now, new Date(now.getTime() + leaseMs), limit],
    );
    // TypeORM's Postgres driver answers an UPDATE … RETURNING as [rows, rowCount], not as the rows.
    const rows = (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as { id: string }[];
    return rows.map((row) => row.id);
  }

  /** Every published key of the domain: the active one and any pending or retiring one (see DkimKeyEntity); none when it does not exist. */
  findKeys(id: string): Promise<DomainKeyRow[]> {
    return this.dataSource.query(`${PUBLISHED_KEYS} WHERE d.id = $1 ORDER BY 1, 3`, [id]);
  }

  allKeys(): Promise<DomainKeyRow[]> {
    return this.dataSource.query(`${PUBLISHED_KEYS} ORDER BY 1, 3`);
  }
}
