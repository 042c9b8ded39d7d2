import { Injectable } from '@nestjs/common';
import type { Mode } from '@mailroom/contracts';
import { DataSource } from 'typeorm';
import type { EmailStatus, RecipientStatus } from '../delivery/status-summary';
import { AppliedEventsRepository } from '../reports/applied-events.repository';
import { complaintMark } from './complaint-mark';

@Injectable()
export class ComplaintsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly appliedEvents: AppliedEventsRepository,
  ) {}

  /**
   * Suppresses the address and marks the email and recipient, in one
   * transaction, once per event id: the same event again changes nothing,
   * so an address taken off the list since stays off.
   */
  async apply(eventId: string, mode: Mode, emailId: string | null, address: string, details: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (!(await this.appliedEvents.markApplied(manager, 'complaints', eventId))) return;
      // The email first, in the event's mode: a recipient of the other mode's email is not this complaint's. Locked
      // before its recipient is read, as a delivery worker locks it to record an attempt: a complaint that read the
      // recipient waiting while the attempt's 250 was being written marked nothing, and the email read delivered
      // and never complained of. Locked before the address is suppressed, too, as the worker locks its emails
      // before adding its suppressions, so the two cannot each wait for the other.
      // Claimed by a delivery worker (lease_owner): an attempt is in flight, or its worker died in one.
      const emails: Array<{ status: EmailStatus; claimed: boolean }> = emailId
        ? await manager.query('SELECT status, lease_owner IS NOT NULL AS claimed FROM emails.emails WHERE id = $1 AND mode = $2 FOR UPDATE', [emailId, mode])
        : [];
      await manager.query(
        `INSERT INTO emails.suppressions (mode, address, reason, details, created_at) VALUES ($1, $2, 'complaint', $3, now())
         ON CONFLICT (mode, address) DO UPDATE SET reason = 'complaint', details = EXCLUDED.details`,
        [mode, address, details],
      );
      if (!emails.length) return;
      const [recipient]: Array<{ status: RecipientStatus }> = await manager.query('SELECT status FROM emails.recipients WHERE email_id = $1 AND address = $2', [
        emailId,
        address,
      ]);
      // Only when a server took the message for that address, or may be taking it now: a complaint naming someone
      // the email never went to (a publisher's mix-up, or a forged report), a recipient suppressed or not yet sent
      // to included, marked an email as complained of by a reader who never got it.
      const mark = complaintMark(emails[0].status, recipient?.status, emails[0].claimed);
      if (!mark) return;
      await manager.query('UPDATE emails.recipients SET complained_at = COALESCE(complained_at, now()) WHERE email_id = $1 AND address = $2', [emailId, address]);
      if (mark === 'email') await manager.query('UPDATE emails.emails SET complained_at = COALESCE(complained_at, now()) WHERE id = $1', [emailId]);
    });
  }
}
