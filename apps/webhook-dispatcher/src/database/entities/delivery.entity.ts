import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { DeliveryStatus } from '@mailroom/contracts';

/** One event for one webhook; unique on (webhook_id, event_id), so a redelivered stream message adds nothing. */
@Entity({ name: 'deliveries' })
export class DeliveryEntity {
  /** whd_<ULID> */
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'webhook_id' })
  webhookId: string;

  @Column('text', { name: 'event_id' })
  eventId: string;

  @Column('text', { name: 'event_type' })
  eventType: string;

  /** The event envelope exactly as POSTed. */
  @Column('jsonb')
  payload: Record<string, unknown>;

  @Column('text')
  status: DeliveryStatus;

  @Column('integer')
  attempts: number;

  /** Attempts allowed in all: the schedule's length, or one more after a manual retry. */
  @Column('integer', { name: 'attempt_limit' })
  attemptLimit: number;

  @Column('timestamptz', { name: 'next_attempt_at', nullable: true })
  nextAttemptAt: Date | null;

  @Column('integer', { name: 'last_response_code', nullable: true })
  lastResponseCode: number | null;

  @Column('integer', { name: 'last_duration_ms', nullable: true })
  lastDurationMs: number | null;

  @Column('text', { name: 'last_error', nullable: true })
  lastError: string | null;

  @Column('text', { name: 'lease_owner', nullable: true })
  leaseOwner: string | null;

  @Column('timestamptz', { name: 'lease_expires_at', nullable: true })
  leaseExpiresAt: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}
