import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { IdempotencyKeys, KeyClaim } from '@mailroom/database';
import { IdempotencyInput } from '@mailroom/contracts';

/** Not the sending domains' (SENDING_DOMAIN_LOCK_CLASS), the other two-key lock of this database. */
export const IDEMPOTENCY_KEY_LOCK_CLASS = 0x6d72_696b;

/**
 * The sends' Idempotency-Keys (emails.idempotency_keys; see IdempotencyKeys):
 * a key's answer is the send's first response, kept as json so a replay is
 * the first answer as it was written, keys in their order.
 */
@Injectable()
export class IdempotencyStore {
  private readonly keys: IdempotencyKeys;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.keys = new IdempotencyKeys(dataSource, {
      table: 'emails.idempotency_keys',
      lockClass: IDEMPOTENCY_KEY_LOCK_CLASS,
      answerColumns: { response: 'json', status_code: 'int' },
    });
  }

  /** The stored answer for a fresh key, or null; 409 when the key came with another body. */
  async replay<R>(apiKeyId: string, idempotency: IdempotencyInput): Promise<R | null> {
    const row = await this.keys.replay(apiKeyId, idempotency);
    return row ? (row.response as R) : null;
  }

  claim(manager: EntityManager, apiKeyId: string, idempotency: IdempotencyInput): Promise<KeyClaim> {
    return this.keys.claim(manager, apiKeyId, idempotency);
  }

  complete(manager: EntityManager, apiKeyId: string, key: string, response: unknown, statusCode: number): Promise<void> {
    return this.keys.complete(manager, apiKeyId, key, { response: JSON.stringify(response), status_code: statusCode });
  }

  purgeExpired(): Promise<number> {
    return this.keys.purgeExpired();
  }
}
