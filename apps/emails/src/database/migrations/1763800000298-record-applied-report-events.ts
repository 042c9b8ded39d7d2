import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ids of the complaint events the complaints consumer applied, so an
 * event delivered again (an ack lost, a publisher's retry past JetStream's
 * duplicate window) changes nothing: applied twice, it put back on the
 * suppression list an address its owner had taken off since.
 */
export class RecordAppliedComplaints1763800000298 implements MigrationInterface {
  name = 'RecordAppliedComplaints1763800000298';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE emails.complaint_applied_events (
        event_id text PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The purge of ids too old to be delivered again.
    await queryRunner.query('CREATE INDEX complaint_applied_events_applied_at_idx ON emails.complaint_applied_events (applied_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE emails.complaint_applied_events');
  }
}
