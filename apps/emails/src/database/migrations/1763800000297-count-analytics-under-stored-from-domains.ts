import { MigrationInterface, QueryRunner } from 'typeorm';
import { parseEmailAddress } from '@mailroom/contracts';

/**
 * Analytics once keyed its counters by the from domain as the event wrote
 * it, only lower-cased: `x@bücher.de` counted under 'bücher.de' and
 * `x@a.com (Ann)` under 'a.com (ann)', while emails.from_domain, the
 * `domain` filter and key restrictions say 'xn--bcher-kva.de' and 'a.com'.
 * Each such row is added into the row of the stored form, through the parser
 * that sets from_domain, and deleted. The '*' rows sum every domain and were
 * right all along; a row whose domain does not read as an address stays.
 */
export class CountAnalyticsUnderStoredFromDomains1763800000297 implements MigrationInterface {
  name = 'CountAnalyticsUnderStoredFromDomains1763800000297';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The projector's increments wait for the merge, so none lands on a row being moved.
    await queryRunner.query('LOCK TABLE emails.analytics_counters IN SHARE ROW EXCLUSIVE MODE');
    // A stored domain is lower-case ASCII: letters, digits, dots and hyphens. Anything else was misread.
    const misread: Array<{ domain: string }> = await queryRunner.query(
      `SELECT DISTINCT domain FROM emails.analytics_counters WHERE domain <> '*' AND domain !~ '^[a-z0-9.-]*$'`,
    );
    for (const { domain } of misread) {
      const stored = parseEmailAddress(`x@${domain}`)?.domain;
      if (!stored || stored === domain) continue;
      // One source row per target row (the old domain is fixed), so no row is updated twice in the statement.
      await queryRunner.query(
        `INSERT INTO emails.analytics_counters (mode, bucket, domain, tag, metric, value)
         SELECT mode, bucket, $2, tag, metric, value FROM emails.analytics_counters WHERE domain = $1
         ON CONFLICT (mode, tag, bucket, domain, metric) DO UPDATE SET value = emails.analytics_counters.value + EXCLUDED.value`,
        [domain, stored],
      );
      await queryRunner.query('DELETE FROM emails.analytics_counters WHERE domain = $1', [domain]);
    }
  }

  async down(): Promise<void> {
    // Nothing to undo: merged counts cannot be told apart again, and the older
    // projector reads and adds to the merged rows as it does to any other.
  }
}
