import { DataSource, EntityManager } from 'typeorm';
import { IDEMPOTENCY_LIMITS, IdempotencyInput } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import { deleteInBatches } from './delete-in-batches';

const WINDOW = `interval '${IDEMPOTENCY_LIMITS.windowHours} hours'`;

/** Where a service keeps its Idempotency-Keys, and how its requests for one key exclude each other. */
export interface IdempotencyKeysTable {
  /**
   * Schema-qualified (`emails.idempotency_keys`): primary key (api_key_id, key), request_hash, created_at
   * (indexed, for the purge) and the answer columns.
   */
  table: string;
  /**
   * The advisory lock class of a key being stored: pg_try_advisory_xact_lock(class, hashtext(api key id || ' ' || key)),
   * unambiguous since a key holds no space. The two-key form never meets the one-key locks of migrations; each table
   * has its own class, distinct from every other two-key lock of its database.
   */
  lockClass: number;
  /**
   * The columns holding the answer, each with the type its parameter is cast to. NULL while the key is being stored
   * (the first one is never NULL once it is answered).
   */
  answerColumns: Readonly<Record<string, string>>;
}

/**
 * What a claim found: the key is this transaction's to store (`claimed`), an answer is stored for it (`answered`),
 * or another request's transaction is storing it now (`in_use`).
 */
export type KeyClaim = 'claimed' | 'answered' | 'in_use';

/**
 * Idempotency-Key storage, scoped per API key, for any service that creates
 * things on request (the emails service's sends, the dispatcher's webhooks).
 * The creating transaction takes the key's advisory lock and inserts its row
 * first; a concurrent request with the same key finds the lock taken and is
 * told so at once, rather than waiting on the row inside a transaction: such
 * waits each held one of the pool's connections, so a stalled first request
 * and a client's retries of it took the whole pool (IdempotencyKeyWait waits
 * between tries instead, holding none). Rows older than the window are
 * ignored and overwritten.
 */
export class IdempotencyKeys {
  private readonly answerColumns: string[];

  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: IdempotencyKeysTable,
  ) {
    this.answerColumns = Object.keys(keys.answerColumns);
  }

  /** The stored answer's columns for a fresh key, or null; 409 when the key came with another body. */
  async replay(apiKeyId: string, idempotency: IdempotencyInput): Promise<Record<string, unknown> | null> {
    const [row] = await this.dataSource.query(
      `SELECT request_hash, ${this.answerColumns.join(', ')} FROM ${this.keys.table}
        WHERE api_key_id = $1 AND key = $2 AND created_at > now() - ${WINDOW} AND ${this.answerColumns[0]} IS NOT NULL`,
      [apiKeyId, idempotency.key],
    );
    if (!row) return null;
    if (row.request_hash !== idempotency.requestHash) {
      throw DomainError.conflict(
        `The Idempotency-Key '${idempotency.key}' was already used with a different request; use a new key for a new request.`,
      );
    }
    return row;
  }

  /**
   * Claims the key inside the creating transaction, without waiting on another's: the lock is tried, never
   * waited for. A hashtext collision of two keys in flight at once only has one wait for the other; a row held
   * by a transaction that took no lock (a release before this one, during a rolling deploy) is still waited for.
   */
  async claim(manager: EntityManager, apiKeyId: string, idempotency: IdempotencyInput): Promise<KeyClaim> {
    const { table, lockClass } = this.keys;
    const [row] = await manager.query(
      `WITH lock AS (SELECT pg_try_advisory_xact_lock($4, hashtext($1::text || ' ' || $2::text)) AS free),
       claimed AS (
         INSERT INTO ${table} (api_key_id, key, request_hash, created_at)
         SELECT $1, $2, $3, now() FROM lock WHERE free
         ON CONFLICT (api_key_id, key) DO UPDATE
           SET request_hash = EXCLUDED.request_hash, ${this.answerColumns.map((column) => `${column} = NULL`).join(', ')}, created_at = now()
           WHERE ${table}.created_at <= now() - ${WINDOW}
         RETURNING key)
       SELECT free, EXISTS (SELECT FROM claimed) AS claimed FROM lock`,
      [apiKeyId, idempotency.key, idempotency.requestHash, lockClass],
    );
    if (!row.free) return 'in_use';
    return row.claimed ? 'claimed' : 'answered';
  }

  /** Stores the answer of a claimed key, in the transaction that claimed it; `answer` holds a value for every answer column. */
  async complete(manager: EntityManager, apiKeyId: string, key: string, answer: Readonly<Record<string, unknown>>): Promise<void> {
    const assignments = this.answerColumns.map((column, index) => `${column} = $${index + 3}::${this.keys.answerColumns[column]}`);
    await manager.query(`UPDATE ${this.keys.table} SET ${assignments.join(', ')} WHERE api_key_id = $1 AND key = $2`, [
      apiKeyId,
      key,
      ...this.answerColumns.map((column) => answer[column]),
    ]);
  }

  /**
   * Drops keys past the window, oldest first and 5,000 a statement: an hour of
   * keyed requests at a high rate is millions of rows, which one DELETE would
   * hold locked and write to the WAL in a single transaction.
   */
  purgeExpired(): Promise<number> {
    return deleteInBatches(this.dataSource, {
      table: this.keys.table,
      key: 'api_key_id, key',
      orderBy: 'created_at',
      where: `created_at <= now() - ${WINDOW}`,
      parameters: [],
    });
  }
}
