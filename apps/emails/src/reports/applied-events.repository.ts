import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/** The consumers that record the events they applied in emails.report_applied_events. */
export type ReportConsumerName = 'complaints' | 'bounces';

/**
 * The ids of the events each report consumer applied, so that an event
 * delivered again (an ack lost, a publisher's retry past JetStream's
 * duplicate window) is applied once.
 */
@Injectable()
export class AppliedEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records `eventId` as applied by `consumer` inside the caller's
   * transaction; answers false when it already was, and the caller then
   * changes nothing.
   */
  async markApplied(manager: EntityManager, consumer: ReportConsumerName, eventId: string): Promise<boolean> {
    const fresh: unknown[] = await manager.query(
      'INSERT INTO emails.report_applied_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id',
      [consumer, eventId],
    );
    return fresh.length > 0;
  }

  /** Forgets applied ids older than `retentionMs`; answers how many. */
  async purgeOlderThan(retentionMs: number): Promise<number> {
    const result = await this.dataSource.query(
      'DELETE FROM emails.report_applied_events WHERE applied_at < now() - make_interval(secs => $1::double precision / 1000)',
      [retentionMs],
    );
    return result[1] ?? 0;
  }
}
