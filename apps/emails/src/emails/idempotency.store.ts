import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { deleteInBatches } from '@mailroom/database';
import { EMAIL_LIMITS, IdempotencyInput } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';

const WINDOW = `interval '${EMAIL_LIMITS.idempotencyWindowHours} hours'`;

/**
 * Idempotency-Key storage, scoped per API key. The row's primary key is the
 * lock: the creating transaction inserts it first, so a concurrent request
 * with the same key blocks on the insert until the first commits, then reads
 * its answer. Rows older than the window are ignored and overwritten.
 */
@Injectable()
export class IdempotencyStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The stored answer for a fresh key, or null; 409 when the key came with another body. */
  async replay<R>(apiKeyId: string, idempotency: IdempotencyInput): Promise<R | null> {
    const [row] = await this.dataSource.query(
      `SELECT request_hash, response FROM emails.idempotency_keys
        WHERE api_key_id = $1 AND key = $2 AND created_at > now() - ${WINDOW} AND response IS NOT NULL`,
      [apiKeyId, idempotency.key],
    );
    if (!row) return null;
    if (row.request_hash !== idempotency.requestHash) {
      throw DomainError.conflict(
        `The Idempotency-Key '${idempotency.key}' was already used with a different request; use a new key for a new request.`,
      );
    }
    return row.response as R;
  }

  /** Claims the key inside the creating transaction; false when another request holds it. */
  async claim(manager: EntityManager, apiKeyId: string, idempotency: IdempotencyInput): Promise<boolean> {
    const rows = await manager.query(
      `INSERT INTO emails.idempotency_keys (api_key_id, key, request_hash, created_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (api_key_id, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, response = NULL, status_code = NULL, created_at = now()
         WHERE emails.idempotency_keys.created_at <= now() - ${WINDOW}
       RETURNING key`,
      [apiKeyId, idempotency.key, idempotency.requestHash],
    );
    return rows.length === 1;
  }

  async complete(manager: EntityManager, apiKeyId: string, key: string, response: unknown, statusCode: number): Promise<void> {
    await manager.query(`UPDATE emails.idempotency_keys SET response = $3::json, status_code = $4 WHERE api_key_id = $1 AND key = $2`, [
      apiKeyId,
      key,
      JSON.stringify(response),
      statusCode,
    ]);
  }

  /**
   * Drops keys past the window, oldest first and 5,000 a statement: an hour of
   * keyed sends at a high rate is millions of rows, which one DELETE would
   * hold locked and write to the WAL in a single transaction.
   */
  purgeExpired(): Promise<number> {
    return deleteInBatches(this.dataSource, {
      table: 'emails.idempotency_keys',
      key: 'api_key_id, key',
      orderBy: 'created_at',
      where: `created_at <= now() - ${WINDOW}`,
      parameters: [],
    });
  }
}
