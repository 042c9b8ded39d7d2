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
      // Locked before its recipients are read, as a delivery worker locks it to record an attempt: whichever
      // commits second sees the other's recipients, so the email's status always agrees with all of them. Locked
      // before the address is suppressed, too, as the worker locks its emails before adding its suppressions: the
      // other way round, a report and the record of the attempt it is about could each wait for the other.
      const emails: Array<{ status: EmailStatus }> = report.emailId
        ? await manager.query('SELECT status FROM emails.emails WHERE id = $1 AND mode = $2 FOR UPDATE', [report.emailId, mode])
        : [];
      // An address already on the list keeps its entry, as a bounce at delivery leaves it.
      if (report.suppress) {
        await manager.query(
          `INSERT INTO emails.suppressions (mode, address, reason, details, created_at) VALUES ($1, $2, 'bounce', $3, now())
           ON CONFLICT (mode, address) DO NOTHING`,
          [mode, report.address, report.details],
        );
      }
      if (!emails.length) return;
      const recipients: Array<{ address: string; status: RecipientStatus }> = await manager.query(
        'SELECT address, status FROM emails.recipients WHERE email_id = $1',
        [report.emailId],
      );
      const outcome = bounceAfterAcceptance(emails[0].status, recipients, report.address);
      if (!outcome) return;
      // A recipient still waiting is taken off the retry schedule; a worker with its attempt in flight then leaves it
      // as it is (AttemptsRepository writes only recipients that still wait), so no later outcome replaces the bounce.
      await manager.query(
        `UPDATE emails.recipients SET status = 'bounced', smtp_code = $3, smtp_reply = $4, next_attempt_at = NULL, updated_at = now() WHERE email_id = $1 AND address = $2`,
        [report.emailId, report.address, report.smtpCode, report.smtpReply ?? report.details],
      );
      if (outcome.emailStatus !== emails[0].status) {
        // Once no recipient waits, the email is due for no further attempt.
        await manager.query(
          `UPDATE emails.emails SET status = $2, next_attempt_at = CASE WHEN $2 = 'queued' THEN next_attempt_at END, updated_at = now() WHERE id = $1`,
          [report.emailId, outcome.emailStatus],
        );
      }
    });
  }
}
