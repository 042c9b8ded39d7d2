import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ids of the events the report consumers (complaints, bounces) applied,
 * so an event delivered again (an ack lost, a publisher's retry past
 * JetStream's duplicate window) changes nothing: applied twice, it put back
 * on the suppression list an address its owner had taken off since. Keyed by
 * consumer as well, so one consumer's ids never stop another's events.
 */
export class RecordAppliedReportEvents1763800000298 implements MigrationInterface {
  name = 'RecordAppliedReportEvents1763800000298';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE emails.report_applied_events (
        consumer text NOT NULL,
        event_id text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      )`);
    // The purge of ids too old to be delivered again.
    await queryRunner.query('CREATE INDEX report_applied_events_applied_at_idx ON emails.report_applied_events (applied_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE emails.report_applied_events');
  }
}
