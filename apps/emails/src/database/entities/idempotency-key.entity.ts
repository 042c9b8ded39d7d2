import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The first answer to a request with an Idempotency-Key, per API key. The
 * primary key is the lock: concurrent requests with one key serialize on it.
 */
@Entity({ name: 'idempotency_keys' })
export class IdempotencyKeyEntity {
  @PrimaryColumn('text', { name: 'api_key_id' })
  apiKeyId: string;

  @PrimaryColumn('text')
  key: string;

  /** SHA-256 of the canonical request body (and route), computed by the gateway. */
  @Column('text', { name: 'request_hash' })
  requestHash: string;

  /** json, not jsonb: a replay is the first answer as it was written, keys in their order. */
  @Column('json', { nullable: true })
  response: unknown;

  @Column('int', { name: 'status_code', nullable: true })
  statusCode: number | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}
