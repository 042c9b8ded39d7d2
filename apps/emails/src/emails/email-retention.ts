import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { MailroomConfig } from '@mailroom/config';
import { BatchedDelete, deleteInBatches, firstIdAt } from '@mailroom/database';
import { MAILROOM_CONFIG, PeriodicPurger } from '@mailroom/runtime';

/**
 * EMAIL_RETENTION: emails in a final state older than the retention are
 * deleted with their recipients (ON DELETE CASCADE), a thousand per
 * statement. Email ids start with the time they were accepted (email_ + a
 * ULID), so the primary key bounds the scan. An email still queued or
 * scheduled is never deleted, whatever its age, and a finished one only once
 * its recipients' last change (a delivery, a bounce, a cancellation) is older
 * than the retention too: one scheduled a month ahead or retried for days
 * would otherwise be gone, with its history, as soon as it was sent. Opens
 * and clicks change only the email, so they do not keep it longer. The count triggers take the
 * deleted rows out of totalCount; analytics counters and the suppression
 * list are separate tables and stay.
 */
@Injectable()
export class EmailRetention extends PeriodicPurger {
  protected readonly what = 'finished emails past EMAIL_RETENTION';
  protected readonly everyMs = 10 * 60 * 1000;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {
    super();
  }

  protected enabled(): boolean {
    return this.config.EMAIL_RETENTION > 0;
  }

  protected purge(): Promise<number> {
    return this.purgeOlderThan(this.config.EMAIL_RETENTION);
  }

  /** Deletes the finished emails accepted more than `retentionMs` ago; answers how many. */
  purgeOlderThan(retentionMs: number): Promise<number> {
    return deleteInBatches(this.dataSource, finishedEmailsBefore(Date.now() - retentionMs));
  }
}

/**
 * The finished emails accepted before `cutoff` (epoch ms) whose recipients
 * last changed before it too. Their last change is a scalar subquery, which
 * Postgres runs per candidate email on the recipients' primary key: written
 * as NOT EXISTS it became an anti join that read the recipients table in
 * email order, skipping every old recipient, until it met a recent one, and
 * did so again in every batch, so a catch-up purge over months of mail read
 * the whole backlog a thousand emails at a time.
 */
export function finishedEmailsBefore(cutoff: number): BatchedDelete {
  return {
    table: 'emails.emails',
    key: 'id',
    where: `id < $1 AND status IN ('sent', 'delivered', 'bounced', 'failed', 'cancelled', 'suppressed')
            AND coalesce((SELECT max(r.updated_at) FROM emails.recipients r WHERE r.email_id = emails.emails.id), '-infinity') < to_timestamp($2::double precision / 1000)`,
    parameters: [firstIdAt('email_', cutoff), cutoff],
    batchSize: 1000,
  };
}
