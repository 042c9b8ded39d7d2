import { Injectable } from '@nestjs/common';
import type { Mode } from '@mailroom/contracts';
import { DataSource } from 'typeorm';

@Injectable()
export class ComplaintsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Suppresses the address and marks the email and recipient, in one
   * transaction, once per event id: the same event again changes nothing,
   * so an address taken off the list since stays off.
   */
  async apply(eventId: string, mode: Mode, emailId: string | null, address: string, details: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const fresh: unknown[] = await manager.query(
        'INSERT INTO emails.complaint_applied_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING event_id',
        [eventId],
      );
      if (!fresh.length) return;
      await manager.query(
        `INSERT INTO emails.suppressions (mode, address, reason, details, created_at) VALUES ($1, $2, 'complaint', $3, now())
         ON CONFLICT (mode, address) DO UPDATE SET reason = 'complaint', details = EXCLUDED.details`,
        [mode, address, details],
      );
      if (!emailId) return;
      await manager.query(
        'UPDATE emails.recipients SET complained_at = COALESCE(complained_at, now()) WHERE email_id = $1 AND address = $2',
        [emailId, address],
      );
      await manager.query('UPDATE emails.emails SET complained_at = COALESCE(complained_at, now()) WHERE id = $1 AND mode = $2', [emailId, mode]);
    });
  }

  /** Forgets applied ids older than `retentionMs`; answers how many. */
  async purgeAppliedEvents(retentionMs: number): Promise<number> {
    const result = await this.dataSource.query(
      'DELETE FROM emails.complaint_applied_events WHERE applied_at < now() - make_interval(secs => $1::double precision / 1000)',
      [retentionMs],
    );
    return result[1] ?? 0;
  }
}
