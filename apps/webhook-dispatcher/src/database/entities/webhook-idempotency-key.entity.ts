import { Column, Entity } from 'typeorm';
import { IdempotencyKeyColumns } from '@mailroom/database';

/**
 * The webhook a request with an Idempotency-Key created, per API key (see
 * WebhookIdempotency). Only its id: a replay answers the webhook as it is now.
 */
@Entity({ name: 'idempotency_keys' })
export class WebhookIdempotencyKeyEntity extends IdempotencyKeyColumns {
  /** Null while the creating transaction is still storing it. Not a foreign key: the webhook may be deleted since. */
  @Column('text', { name: 'webhook_id', nullable: true })
  webhookId: string | null;
}
