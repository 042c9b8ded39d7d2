import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every bucket key. `tag` is '' for the all-emails row, one tag, or two tags
 * sorted and joined by a space (tags never hold spaces), so a filter on up to
 * two tags reads one bucket per key instead of intersecting rows.
 */
const KEY = 'mode text NOT NULL, status text NOT NULL, domain text NOT NULL, tag text NOT NULL';

/**
 * The rows an email contributes to the counts, for a transition table (or the
 * whole emails table) named `source`, each with `sign`: the '' row, one per
 * distinct tag and one per pair of them, in the UTC hour of its creation.
 */
const contributions = (source: string, sign: string) => `
  SELECT e.mode, date_trunc('hour', e.created_at, 'UTC') AS hour, e.status, e.from_domain AS domain, t.tag, ${sign} AS delta
    FROM ${source} e CROSS JOIN LATERAL (
      SELECT '' UNION SELECT unnest(e.tags) UNION SELECT a || ' ' || b FROM unnest(e.tags) a, unnest(e.tags) b WHERE a < b
    ) AS t(tag)`;

const appendDeltas = (rows: string) => `
  INSERT INTO emails.email_count_deltas (mode, hour, status, domain, tag, delta)
  SELECT mode, hour, status, domain, tag, sum(delta) FROM (${rows}) contributed
   GROUP BY mode, hour, status, domain, tag HAVING sum(delta) <> 0`;

/** Only the columns the counts are keyed by; lease and tracking updates change none of them. */
const counted = (alias: string) => `(${alias}.mode, ${alias}.created_at, ${alias}.status, ${alias}.from_domain, ${alias}.tags)`;

/** The old (`o`) or new (`n`) side of the updated rows whose counted columns changed. */
const changed = (side: 'o' | 'n') =>
  `(SELECT ${side}.* FROM old_rows o JOIN new_rows n USING (id) WHERE ${counted('o')} IS DISTINCT FROM ${counted('n')})`;

/**
 * Exact, cheap totalCount for GET /v1/emails. email_counts holds daily
 * buckets and email_counts_hourly hourly ones, so a date range counts whole
 * days, then whole hours at its edges, and only the sub-hour rest from emails.
 *
 * Statement-level triggers append deltas instead of updating a counter row,
 * so concurrent sends never wait on each other; the compactor folds them into
 * the buckets every second, and readers add the pending deltas to stay exact.
 */
export class CreateEmailCounts1763800000292 implements MigrationInterface {
  name = 'CreateEmailCounts1763800000292';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE emails.email_counts (${KEY}, day date NOT NULL, count bigint NOT NULL,
      PRIMARY KEY (mode, tag, day, status, domain))`);
    await queryRunner.query(`CREATE TABLE emails.email_counts_hourly (${KEY}, hour timestamptz NOT NULL, count bigint NOT NULL,
      PRIMARY KEY (mode, tag, hour, status, domain))`);
    // Append-only and short-lived (emptied every second), so it needs no index.
    await queryRunner.query(`CREATE TABLE emails.email_count_deltas (${KEY}, hour timestamptz NOT NULL, delta bigint NOT NULL)`);

    // Transition tables need one trigger per event.
    await queryRunner.query(`
      CREATE FUNCTION emails.email_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${appendDeltas(contributions('new_rows', '1'))}; RETURN NULL; END $$`);
    await queryRunner.query(`
      CREATE FUNCTION emails.email_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${appendDeltas(contributions('old_rows', '-1'))}; RETURN NULL; END $$`);
    await queryRunner.query(`
      CREATE FUNCTION emails.email_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${appendDeltas(`${contributions(changed('o'), '-1')} UNION ALL ${contributions(changed('n'), '1')}`)};
      RETURN NULL; END $$`);
    await queryRunner.query(`
      CREATE FUNCTION emails.email_counts_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN TRUNCATE emails.email_counts, emails.email_counts_hourly, emails.email_count_deltas; RETURN NULL; END $$`);
    await queryRunner.query(`CREATE TRIGGER email_counts_inserted AFTER INSERT ON emails.emails
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION emails.email_counts_inserted()`);
    await queryRunner.query(`CREATE TRIGGER email_counts_updated AFTER UPDATE ON emails.emails
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION emails.email_counts_updated()`);
    await queryRunner.query(`CREATE TRIGGER email_counts_deleted AFTER DELETE ON emails.emails
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION emails.email_counts_deleted()`);
    await queryRunner.query(`CREATE TRIGGER email_counts_truncated AFTER TRUNCATE ON emails.emails
      FOR EACH STATEMENT EXECUTE FUNCTION emails.email_counts_truncated()`);

    // Writers wait until the backfill commits, then their triggers count them: nothing is missed or counted twice.
    await queryRunner.query('LOCK TABLE emails.emails IN SHARE MODE');
    await queryRunner.query(`
      INSERT INTO emails.email_counts_hourly (mode, hour, status, domain, tag, count)
      SELECT mode, hour, status, domain, tag, sum(delta) FROM (${contributions('emails.emails', '1')}) contributed
       GROUP BY mode, hour, status, domain, tag`);
    await queryRunner.query(`
      INSERT INTO emails.email_counts (mode, day, status, domain, tag, count)
      SELECT mode, (hour AT TIME ZONE 'UTC')::date, status, domain, tag, sum(count) FROM emails.email_counts_hourly
       GROUP BY 1, 2, 3, 4, 5`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const event of ['inserted', 'updated', 'deleted', 'truncated']) {
      await queryRunner.query(`DROP TRIGGER email_counts_${event} ON emails.emails`);
      await queryRunner.query(`DROP FUNCTION emails.email_counts_${event}()`);
    }
    await queryRunner.query('DROP TABLE emails.email_count_deltas');
    await queryRunner.query('DROP TABLE emails.email_counts_hourly');
    await queryRunner.query('DROP TABLE emails.email_counts');
  }
}
