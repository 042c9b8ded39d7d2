import { Column, PrimaryColumn } from 'typeorm';

/**
 * The columns every Idempotency-Key table has (see IdempotencyKeys): one row
 * per API key and key. An entity extends it with its service's answer columns.
 */
export abstract class IdempotencyKeyColumns {
  @PrimaryColumn('text', { name: 'api_key_id' })
  apiKeyId: string;

  @PrimaryColumn('text')
  key: string;

  /** SHA-256 of the route and canonical request body, computed by the gateway. */
  @Column('text', { name: 'request_hash' })
  requestHash: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}
