import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode, WebhookStatus } from '@mailroom/contracts';

@Entity({ name: 'webhooks' })
export class WebhookEntity {
  /** wh_<ULID>: time-sortable, so "newest first" is ORDER BY id DESC. */
  @PrimaryColumn('text')
  id: string;

  /** Test webhooks receive test-mode events only; live ones live events only. */
  @Column('text')
  mode: Mode;

  @Column('text')
  url: string;

  @Column('text', { array: true })
  events: string[];

  /**
   * The domainRestrictions of the key that created it (stored form: lower-case
   * punycode): it receives only events of these domains. Empty: every domain.
   */
  @Column('text', { name: 'domain_restrictions', array: true })
  domainRestrictions: string[];

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text')
  status: WebhookStatus;

  /** SecretBox-sealed (AES-256-GCM, the webhook id as associated data). Never logged. */
  @Column('text', { name: 'secret_sealed' })
  secretSealed: string;

  /** The secret before the last rotation; still signs until previousSecretExpiresAt. */
  @Column('text', { name: 'previous_secret_sealed', nullable: true })
  previousSecretSealed: string | null;

  @Column('timestamptz', { name: 'previous_secret_expires_at', nullable: true })
  previousSecretExpiresAt: Date | null;

  /** Failed attempts since the last success. */
  @Column('integer', { name: 'failure_count' })
  failureCount: number;

  /** Deliveries that failed for good (every retry used up) since the last success. */
  @Column('integer', { name: 'failed_deliveries_streak' })
  failedDeliveriesStreak: number;

  /** The first failure since the last success: the disable window counts from it. */
  @Column('timestamptz', { name: 'first_failure_at', nullable: true })
  firstFailureAt: Date | null;

  @Column('text', { name: 'disabled_reason', nullable: true })
  disabledReason: string | null;

  @Column('timestamptz', { name: 'last_delivery_at', nullable: true })
  lastDeliveryAt: Date | null;

  @Column('text', { name: 'last_delivery_status', nullable: true })
  lastDeliveryStatus: 'success' | 'failure' | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
