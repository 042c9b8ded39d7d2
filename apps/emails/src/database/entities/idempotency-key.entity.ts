import { Column, Entity } from 'typeorm';
import { IdempotencyKeyColumns } from '@mailroom/database';

/** The first answer to a send with an Idempotency-Key, per API key (see IdempotencyStore). */
@Entity({ name: 'idempotency_keys' })
export class IdempotencyKeyEntity extends IdempotencyKeyColumns {
  /** json, not jsonb: a replay is the first answer as it was written, keys in their order. */
  @Column('json', { nullable: true })
  response: unknown;

  @Column('int', { name: 'status_code', nullable: true })
  statusCode: number | null;
}
