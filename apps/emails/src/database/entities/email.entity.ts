import type { EmailStatusValue } from '@mailroom/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

export type EmailStatus = EmailStatusValue;

/** One attachment as the API accepted it; content stays base64 until the worker builds the MIME message. */
export interface StoredAttachment {
  filename: string;
  content: string;
  contentType?: string;
  contentId?: string;
}

/**
 * An email and its place in the delivery queue. The worker claims due rows
 * (status queued/scheduled, next_attempt_at <= now, no live lease).
 */
@Entity({ name: 'emails' })
export class EmailEntity {
  /** email_<ULID>: time-sortable, so newest first is ORDER BY id DESC. */
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  mode: 'live' | 'test';

  @Column('text', { name: 'api_key_id' })
  apiKeyId: string;

  /** As given, e.g. `Acme <hi@acme.com>`. */
  @Column('text', { name: 'from_address' })
  fromAddress: string;

  /** The bare address of from_address. */
  @Column('text', { name: 'from_email' })
  fromEmail: string;

  /** Lower-case domain of from_email: DKIM d=, domainRestrictions and domain usage. */
  @Column('text', { name: 'from_domain' })
  fromDomain: string;

  /** As given (each entry one address, optionally with a display name). */
  @Column('text', { array: true })
  to: string[];

  /** Lower-case bare addresses of `to`, for the list filter (GIN indexed). */
  @Column('text', { name: 'to_addresses', array: true })
  toAddresses: string[];

  @Column('text', { array: true })
  cc: string[];

  @Column('text', { array: true })
  bcc: string[];

  @Column('text', { name: 'reply_to', array: true })
  replyTo: string[];

  @Column('text')
  subject: string;

  @Column('text', { nullable: true })
  html: string | null;

  @Column('text', { nullable: true })
  text: string | null;

  /** Custom headers, name as given → value; never one of RESERVED_HEADERS (From, Message-ID, Sender, Received…). */
  @Column('jsonb')
  headers: Record<string, string>;

  @Column('jsonb')
  attachments: StoredAttachment[];

  @Column('text', { array: true })
  tags: string[];

  @Column('jsonb')
  metadata: Record<string, string>;

  @Column('text')
  status: EmailStatus;

  @Column('timestamptz', { name: 'scheduled_at', nullable: true })
  scheduledAt: Date | null;

  /** When the worker may next pick the email up; null when nothing is due. */
  @Column('timestamptz', { name: 'next_attempt_at', nullable: true })
  nextAttemptAt: Date | null;

  @Column('text', { name: 'lease_owner', nullable: true })
  leaseOwner: string | null;

  @Column('timestamptz', { name: 'lease_expires_at', nullable: true })
  leaseExpiresAt: Date | null;

  @Column('int')
  attempts: number;

  /** `<id@from_domain>`, fixed at creation so a redelivery after a crash reuses it. */
  @Column('text', { name: 'message_id' })
  messageId: string;

  /** Per-email tracking override; null = the domain's default. */
  @Column('boolean', { name: 'track_opens', nullable: true })
  trackOpens: boolean | null;

  @Column('boolean', { name: 'track_clicks', nullable: true })
  trackClicks: boolean | null;

  @Column('int')
  opens: number;

  @Column('int')
  clicks: number;

  @Column('timestamptz', { name: 'first_opened_at', nullable: true })
  firstOpenedAt: Date | null;

  @Column('timestamptz', { name: 'last_opened_at', nullable: true })
  lastOpenedAt: Date | null;

  @Column('timestamptz', { name: 'delivered_at', nullable: true })
  deliveredAt: Date | null;

  /** When a recipient first complained (a feedback-loop report, or test mode's complained@ address). */
  @Column('timestamptz', { name: 'complained_at', nullable: true })
  complainedAt: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
