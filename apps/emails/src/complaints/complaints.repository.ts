import { Injectable } from '@nestjs/common';
import type { Mode } from '@mailroom/contracts';
import { DataSource } from 'typeorm';
import { ACCEPTED_BY_SERVER } from '../delivery/status-summary';
import { AppliedEventsRepository } from '../reports/applied-events.repository';

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
      await manager.query(
        `INSERT INTO emails.suppressions (mode, address, reason, details, created_at) VALUES ($1, $2, 'complaint', $3, now())
         ON CONFLICT (mode, address) DO UPDATE SET reason = 'complaint', details = EXCLUDED.details`,
        [mode, address, details],
      );
      if (!emailId) return;
      // The email first, in the event's mode: a recipient of the other mode's email is not this complaint's. Only
      // when a server took the message for that address: a complaint naming someone the email never went to (a
      // publisher's mix-up, or a forged report), a recipient suppressed or not yet sent to included, marked an
      // email as complained of by a reader who never got it.
      const [, emailsMarked]: [unknown, number] = await manager.query(
        `UPDATE emails.emails e SET complained_at = COALESCE(e.complained_at, now())
          WHERE e.id = $1 AND e.mode = $2
            AND EXISTS (SELECT 1 FROM emails.recipients r WHERE r.email_id = e.id AND r.address = $3 AND r.status = ANY($4::text[]))`,
        [emailId, mode, address, ACCEPTED_BY_SERVER],
      );
      if (!emailsMarked) return;
      await manager.query(
        'UPDATE emails.recipients SET complained_at = COALESCE(complained_at, now()) WHERE email_id = $1 AND address = $2',
        [emailId, address],
      );
    });
  }
}
