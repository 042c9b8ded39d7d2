import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Analytics without a domain filter summed a row per domain for every hour,
 * which at a million emails is tens of thousands of rows a request. A '*'
 * row per mode, hour, tag and metric holds the sum over all domains ('*' is
 * never a domain; '' already means "could not read the from domain").
 * The primary key puts the hour before the domain, so a query for one domain
 * still walked every domain's entries; this index puts the domain first and
 * carries the values, so a series is one index-only range per domain.
 */
export class AddAnalyticsAllDomainsRows1763800000293 implements MigrationInterface {
  name = 'AddAnalyticsAllDomainsRows1763800000293';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The projector waits, then adds to the '*' rows itself: nothing is counted twice or missed.
    await queryRunner.query('LOCK TABLE emails.analytics_counters IN SHARE MODE');
    await queryRunner.query(`
      INSERT INTO emails.analytics_counters (mode, bucket, domain, tag, metric, value)
      SELECT mode, bucket, '*', tag, metric, sum(value) FROM emails.analytics_counters GROUP BY mode, bucket, tag, metric`);
    await queryRunner.query(
      'CREATE INDEX analytics_counters_domain_first_idx ON emails.analytics_counters (mode, tag, domain, bucket) INCLUDE (metric, value)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX emails.analytics_counters_domain_first_idx');
    await queryRunner.query(`DELETE FROM emails.analytics_counters WHERE domain = '*'`);
  }
}
