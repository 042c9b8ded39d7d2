import type { EmailRecipientAttemptResponse, RecipientStatusValue } from '@mailroom/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

export type RecipientKind = 'to' | 'cc' | 'bcc';

/** One envelope recipient of an email and its own delivery outcome. */
@Entity({ name: 'recipients' })
export class RecipientEntity {
  @PrimaryColumn('text', { name: 'email_id' })
  emailId: string;

  /** Lower-case bare address, the form suppressions and the duplicate check compare: an address listed twice (to and cc) is one recipient. Sent to as written (recipientSpelling). */
  @PrimaryColumn('text')
  address: string;

  @Column('text')
  kind: RecipientKind;

  @Column('text')
  status: RecipientStatusValue;

  @Column('int')
  attempts: number;

  @Column('int', { name: 'smtp_code', nullable: true })
  smtpCode: number | null;

  @Column('text', { name: 'smtp_reply', nullable: true })
  smtpReply: string | null;

  @Column('timestamptz', { name: 'next_attempt_at', nullable: true })
  nextAttemptAt: Date | null;

  /**
   * Its last attempts, oldest first, as the attempt record appends them (AttemptsRepository; `at` as Postgres
   * writes a timestamptz in JSON). Never inserted: a new recipient takes the column's empty default.
   */
  @Column({ type: 'jsonb', name: 'attempt_log', insert: false })
  attemptLog: EmailRecipientAttemptResponse[];

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
