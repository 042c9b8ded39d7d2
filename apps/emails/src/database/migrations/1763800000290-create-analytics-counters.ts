import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Counters that analytics reads instead of scanning emails: one row per
 * mode, hour, from domain, tag ('' = every email) and metric. The applied
 * events table makes counting idempotent under JetStream redelivery.
 */
export class CreateAnalyticsCounters1763800000290 implements MigrationInterface {
  name = 'CreateAnalyticsCounters1763800000290';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE emails.analytics_counters (
        mode text NOT NULL,
        bucket timestamptz NOT NULL,
        domain text NOT NULL,
        tag text NOT NULL,
        metric text NOT NULL,
        value bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (mode, tag, bucket, domain, metric)
      )`);
    await queryRunner.query(`
      CREATE TABLE emails.analytics_applied_events (
        event_id text PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE emails.analytics_applied_events');
    await queryRunner.query('DROP TABLE emails.analytics_counters');
  }
}
