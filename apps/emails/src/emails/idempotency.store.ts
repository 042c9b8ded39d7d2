import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { deleteInBatches } from '@mailroom/database';
import { EMAIL_LIMITS, IdempotencyInput } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';

const WINDOW = `interval '${EMAIL_LIMITS.idempotencyWindowHours} hours'`;

/**
 * The advisory lock class of a key being stored: pg_try_advisory_xact_lock(class, hashtext(api key id || ' ' || key)),
 * unambiguous since a key holds no space. The two-key form never meets the one-key locks of migrations and count
 * folds, and this class is not the sending domains' (SENDING_DOMAIN_LOCK_CLASS).
 */
export const IDEMPOTENCY_KEY_LOCK_CLASS = 0x6d72_696b;

/**
 * What a claim found: the key is this transaction's to store (`claimed`), an answer is stored for it (`answered`),
 * or another request's transaction is storing it now (`in_use`).
 */
export type KeyClaim = 'claimed' | 'answered' | 'in_use';

/**
 * Idempotency-Key storage, scoped per API key. The creating transaction takes
 * the key's advisory lock and inserts its row first; a concurrent request
 * with the same key finds the lock taken and is told so at once, rather than
 * waiting on the row inside a transaction: such waits each held one of the
 * pool's connections, so a stalled first request and a client's retries of it
 * took the whole pool. Rows older than the window are ignored and overwritten.
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

  /**
   * Claims the key inside the creating transaction, without waiting on another's: the lock is tried, never
   * waited for. A hashtext collision of two keys in flight at once only has one wait for the other; a row held
   * by a transaction that took no lock (a release before this one, during a rolling deploy) is still waited for.
   */
  async claim(manager: EntityManager, apiKeyId: string, idempotency: IdempotencyInput): Promise<KeyClaim> {
    const [row] = await manager.query(
      `WITH lock AS (SELECT pg_try_advisory_xact_lock($4, hashtext($1::text || ' ' || $2::text)) AS free),
       claimed AS (
         INSERT INTO emails.idempotency_keys (api_key_id, key, request_hash, created_at)
         SELECT $1, $2, $3, now() FROM lock WHERE free
         ON CONFLICT (api_key_id, key) DO UPDATE
           SET request_hash = EXCLUDED.request_hash, response = NULL, status_code = NULL, created_at = now()
           WHERE emails.idempotency_keys.created_at <= now() - ${WINDOW}
         RETURNING key)
       SELECT free, EXISTS (SELECT FROM claimed) AS claimed FROM lock`,
      [apiKeyId, idempotency.key, idempotency.requestHash, IDEMPOTENCY_KEY_LOCK_CLASS],
    );
    if (!row.free) return 'in_use';
    return row.claimed ? 'claimed' : 'answered';
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
