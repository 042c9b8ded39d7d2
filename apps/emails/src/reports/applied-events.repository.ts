import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { deleteInBatches } from '@mailroom/database';

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

  /**
   * Forgets applied ids older than `retentionMs`, oldest first and 5,000 a
   * statement; answers how many. A burst of bounce reports (a list gone
   * stale, a provider's backlog) is hundreds of thousands of ids, which one
   * DELETE held locked and wrote to the WAL in a single transaction.
   */
  purgeOlderThan(retentionMs: number): Promise<number> {
    return deleteInBatches(this.dataSource, {
      table: 'emails.report_applied_events',
      key: 'consumer, event_id',
      orderBy: 'applied_at',
      where: 'applied_at < now() - make_interval(secs => $1::double precision / 1000)',
      parameters: [retentionMs],
    });
  }
}
