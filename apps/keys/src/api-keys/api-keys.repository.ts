import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Pool, QueryResult } from 'pg';
import { EntityManager, Repository } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { ListParams, Mode } from '@mailroom/contracts';
import { KeysetPage, keysetPageInOneSnapshot, preparedStatements } from '@mailroom/database';
import { ApiKeyEntity } from '../database/entities/api-key.entity';

/** Every column, aliased to the entity's property names. */
const COLUMNS = `id, name, mode, key_hash AS "keyHash", key_hint AS "keyHint", permissions,
  domain_restrictions AS "domainRestrictions", ip_restrictions AS "ipRestrictions", expires_at AS "expiresAt",
  last_used_at AS "lastUsedAt", created_at AS "createdAt", deleted_at AS "deletedAt"`;

/**
 * The two lookups on the request path (GET by id, and verify on a cache miss)
 * run straight on the pool, as prepared statements unless
 * DATABASE_PREPARED_STATEMENTS is off: TypeORM's find builds and hydrates per
 * call, which was a large share of the keys service's CPU in the auth
 * benchmark, and Postgres plans a prepared statement once per connection.
 * They used to be named here, bypassing that setting, so behind a pooler
 * that cannot keep named statements the lookups could fail.
 */
const FIND_LIVE = `SELECT ${COLUMNS} FROM keys.api_keys WHERE id = $1 AND mode = $2 AND deleted_at IS NULL`;
/** Deleted keys too: their use is told apart from a guess (see ApiKeysService.verify). */
const FIND_BY_HASH = `SELECT ${COLUMNS} FROM keys.api_keys WHERE key_hash = $1`;

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly repository: Repository<ApiKeyEntity>) {}

  insert(entity: ApiKeyEntity): Promise<ApiKeyEntity> {
    return this.repository.save(entity);
  }

  findLive(id: string, mode: Mode): Promise<ApiKeyEntity | null> {
    return this.findOne(FIND_LIVE, [id, mode]);
  }

  findByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.findOne(FIND_BY_HASH, [keyHash]);
  }

  private async findOne(sql: string, parameters: unknown[]): Promise<ApiKeyEntity | null> {
    const pool = (this.repository.manager.connection.driver as PostgresDriver).master as Pool;
    const { rows } = await preparedStatements(pool).query<QueryResult>(sql, parameters);
    return rows[0] ? Object.assign(new ApiKeyEntity(), rows[0]) : null;
  }

  list(mode: Mode, params: ListParams): Promise<KeysetPage<ApiKeyEntity>> {
    const build = (manager: EntityManager) => manager.createQueryBuilder(ApiKeyEntity, 'k').where('k.mode = :mode AND k.deleted_at IS NULL', { mode });
    return keysetPageInOneSnapshot(this.repository.manager.connection, build, 'k.id', params);
  }

  /**
   * Changes a live key in one transaction with its row locked: `decide` sees
   * the row as it is now and returns the columns to set, or throws to change
   * nothing. PATCH and DELETE (which sets deletedAt) both come this way, so
   * each waits for the other: a key deleted meanwhile is seen as gone (null)
   * and never written back to life, and a DELETE is judged against the
   * permissions a PATCH just committed.
   */
  updateLive(id: string, mode: Mode, decide: (entity: ApiKeyEntity) => Partial<ApiKeyEntity>): Promise<ApiKeyEntity | null> {
    return this.repository.manager.transaction(async (manager) => {
      const entity = await manager
        .getRepository(ApiKeyEntity)
        .createQueryBuilder('k')
        .setLock('pessimistic_write')
        .where('k.id = :id AND k.mode = :mode AND k.deleted_at IS NULL', { id, mode })
        .getOne();
      if (!entity) return null;
      const changes = decide(entity);
      if (Object.keys(changes).length) await manager.update(ApiKeyEntity, { id }, changes);
      return Object.assign(entity, changes);
    });
  }

  async markUsed(uses: Array<{ keyId: string; at: Date }>): Promise<void> {
    const ids = uses.map((use) => use.keyId);
    await this.repository.manager.transaction(async (manager) => {
      // Each gateway lists its keys in the order they were first used, and the UPDATE locks rows in the order it
      // joins them: two reports of the same keys in other orders, written at once, deadlocked and one was lost.
      // Locked in id order first, the second report waits for the first.
      await manager.query('SELECT 1 FROM keys.api_keys WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE', [ids]);
      // GREATEST keeps lastUsedAt monotonic when batches from replicas arrive out of order.
      await manager.query(
        `UPDATE keys.api_keys AS k SET last_used_at = GREATEST(COALESCE(k.last_used_at, u.at), u.at)
         FROM unnest($1::text[], $2::timestamptz[]) AS u(id, at) WHERE k.id = u.id`,
        [ids, uses.map((use) => use.at)],
      );
    });
  }
}
