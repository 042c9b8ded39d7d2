import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { MailroomConfig } from '@mailroom/config';
import { deleteInBatches, firstIdAt } from '@mailroom/database';
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
    const cutoff = Date.now() - retentionMs;
    return deleteInBatches(this.dataSource, {
      table: 'emails.emails',
      key: 'id',
      where: `id < $1 AND status IN ('sent', 'delivered', 'bounced', 'failed', 'cancelled', 'suppressed')
              AND NOT EXISTS (SELECT 1 FROM emails.recipients r WHERE r.email_id = emails.emails.id AND r.updated_at >= to_timestamp($2::double precision / 1000))`,
      parameters: [firstIdAt('email_', cutoff), cutoff],
      batchSize: 1000,
    });
  }
}
