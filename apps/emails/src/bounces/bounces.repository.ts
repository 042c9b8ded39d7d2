import { Injectable } from '@nestjs/common';
import type { Mode } from '@mailroom/contracts';
import { DataSource } from 'typeorm';
import type { EmailStatus, RecipientStatus } from '../delivery/status-summary';
import { AppliedEventsRepository } from '../reports/applied-events.repository';
import { bounceAfterAcceptance } from './bounce-after-acceptance';
import type { BounceReport } from './bounce-report';

@Injectable()
export class BouncesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly appliedEvents: AppliedEventsRepository,
  ) {}

  /**
   * Suppresses the address (when the report says to) and bounces the
   * email's recipient, in one transaction, once per event id: the same event
   * again changes nothing, so an address taken off the list since stays off. No event is written: the
   * reported one is on the stream already, for webhooks and analytics.
   */
  async apply(eventId: string, mode: Mode, report: BounceReport): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (!(await this.appliedEvents.markApplied(manager, 'bounces', eventId))) return;
      // An address already on the list keeps its entry, as a bounce at delivery leaves it.
      if (report.suppress) {
        await manager.query(
          `INSERT INTO emails.suppressions (mode, address, reason, details, created_at) VALUES ($1, $2, 'bounce', $3, now())
           ON CONFLICT (mode, address) DO NOTHING`,
          [mode, report.address, report.details],
        );
      }
      if (!report.emailId) return;
      // Locked before its recipients are read, as a delivery worker locks it to record an attempt: whichever
      // commits second sees the other's recipients, so the email's status always agrees with all of them.
      const emails: Array<{ status: EmailStatus }> = await manager.query('SELECT status FROM emails.emails WHERE id = $1 AND mode = $2 FOR UPDATE', [
        report.emailId,
        mode,
      ]);
      if (!emails.length) return;
      const recipients: Array<{ address: string; status: RecipientStatus }> = await manager.query(
        'SELECT address, status FROM emails.recipients WHERE email_id = $1',
        [report.emailId],
      );
      const outcome = bounceAfterAcceptance(recipients, report.address);
      if (!outcome) return;
      await manager.query(
        `UPDATE emails.recipients SET status = 'bounced', smtp_code = $3, smtp_reply = $4, updated_at = now() WHERE email_id = $1 AND address = $2`,
        [report.emailId, report.address, report.smtpCode, report.smtpReply ?? report.details],
      );
      if (outcome.emailStatus !== emails[0].status) {
        await manager.query('UPDATE emails.emails SET status = $2, updated_at = now() WHERE id = $1', [report.emailId, outcome.emailStatus]);
      }
    });
  }
}
