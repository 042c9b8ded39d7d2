import { Client } from 'pg';
import { BenchStack, startBenchStack } from './bench-stack';

export const SEED_DOMAINS = ['acme.com', 'acme.io', 'shop.acme.com', 'news.acme.com', 'billing.acme.com'];
export const SEED_TAGS = ['welcome', 'receipt', 'password-reset', 'newsletter', 'alert', 'invoice'];
export const SEED_DAYS = 90;

const CHUNK = 100_000;

/**
 * Crockford base32 of a non-negative bigint, `len` characters: the ULID
 * alphabet, so a seeded id sorts by its created_at exactly as the API's do.
 */
const BASE32 = `
  CREATE FUNCTION pg_temp.base32(v bigint, len int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((v >> (5 * (len - 1 - k))) & 31)::int + 1, 1), '' ORDER BY k)
      FROM generate_series(0, len - 1) AS k $$`;

/**
 * One chunk of emails, spread evenly over the last SEED_DAYS days. `h` is a
 * cheap per-row hash: 80% live, 5 domains, ~70% delivered and every other
 * status represented, 0–2 tags, opens and clicks on some delivered emails.
 * next_attempt_at stays null so the delivery worker leaves the rows alone.
 */
const INSERT_CHUNK = `
  INSERT INTO emails.emails (id, mode, api_key_id, from_address, from_email, from_domain, "to", to_addresses, subject, text,
                             tags, status, message_id, opens, clicks, created_at, updated_at)
  SELECT 'email_' || pg_temp.base32(ms, 10) || '000000' || pg_temp.base32(i, 10), mode, 'key_bench', 'Bench <hi@' || domain || '>',
         'hi@' || domain, domain, ARRAY['user' || (h % 50000) || '@example.com'], ARRAY['user' || (h % 50000) || '@example.com'],
         'Seeded email ' || i, 'Hello', tags, status, '<' || i || '@' || domain || '>',
         CASE WHEN status = 'delivered' AND h % 3 = 0 THEN 1 + h % 4 ELSE 0 END,
         CASE WHEN status = 'delivered' AND h % 7 = 0 THEN 1 ELSE 0 END,
         created_at, created_at
    FROM (
      SELECT i, ms, h, timestamptz 'epoch' + ms * interval '1 millisecond' AS created_at,
             CASE WHEN i % 5 = 0 THEN 'test' ELSE 'live' END AS mode,
             ($4::text[])[1 + ((h / 7) % 5)::int] AS domain,
             CASE WHEN h % 1000 < 700 THEN 'delivered' WHEN h % 1000 < 780 THEN 'sent' WHEN h % 1000 < 830 THEN 'bounced'
                  WHEN h % 1000 < 850 THEN 'failed' WHEN h % 1000 < 880 THEN 'queued' WHEN h % 1000 < 890 THEN 'scheduled'
                  WHEN h % 1000 < 900 THEN 'cancelled' ELSE 'suppressed' END AS status,
             CASE WHEN (h / 13) % 8 >= 6 THEN '{}'::text[]
                  WHEN (h / 101) % 4 = 0 THEN ARRAY[($5::text[])[1 + ((h / 13) % 8)::int], ($5::text[])[1 + ((h / 1009) % 6)::int]]
                  ELSE ARRAY[($5::text[])[1 + ((h / 13) % 8)::int]] END AS tags
        FROM (
          SELECT i, $6::bigint + (i * $7::bigint) / $3::bigint AS ms, (i * 2654435761) % 4294967296 AS h
            FROM generate_series($1::bigint, $2::bigint) AS i
        ) numbered
    ) seeded`;

/**
 * What the analytics projector would have counted for those emails, in the
 * hour each was created: delivery outcomes, suppressions, opens and clicks,
 * per domain and in the all-domains ('*') row.
 */
const ANALYTICS_COUNTERS = `
  INSERT INTO emails.analytics_counters (mode, bucket, domain, tag, metric, value)
  SELECT e.mode, date_trunc('hour', e.created_at, 'UTC'), d.domain, t.tag, m.metric, sum(m.value)
    FROM emails.emails e
    CROSS JOIN LATERAL (VALUES (e.from_domain), ('*')) AS d(domain)
    CROSS JOIN LATERAL (SELECT DISTINCT unnest(array_prepend('', e.tags))) AS t(tag)
    CROSS JOIN LATERAL (VALUES ('sent', (e.status IN ('sent', 'delivered'))::int), ('delivered', (e.status = 'delivered')::int),
                               ('bounced', (e.status = 'bounced')::int), ('failed', (e.status = 'failed')::int),
                               ('suppressed', (e.status = 'suppressed')::int), ('opens', e.opens), ('uniqueOpens', (e.opens > 0)::int),
                               ('clicks', e.clicks), ('uniqueClicks', (e.clicks > 0)::int)) AS m(metric, value)
   WHERE m.value > 0
   GROUP BY 1, 2, 3, 4, 5`;

/**
 * Seeds `count` emails straight into the database, through the same count
 * triggers the API's inserts fire, then waits for the running emails app to
 * fold their deltas so the benchmark measures the steady state.
 */
export async function seedEmails(databaseUrl: string, count: number, log: (line: string) => void): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const started = Date.now();
    const span = SEED_DAYS * 24 * 3_600_000;
    const firstMs = Date.now() - span;
    await client.query(BASE32);
    for (let first = 1; first <= count; first += CHUNK) {
      const last = Math.min(count, first + CHUNK - 1);
      await client.query(INSERT_CHUNK, [first, last, count, SEED_DOMAINS, SEED_TAGS, firstMs, span]);
      log(`seeded ${last} emails (${Math.round((Date.now() - started) / 1000)} s)`);
    }
    await client.query(ANALYTICS_COUNTERS);
    for (;;) {
      const { rows } = await client.query('SELECT count(*)::int AS n FROM emails.email_count_deltas');
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await client.query('VACUUM ANALYZE emails.emails, emails.email_counts, emails.email_counts_hourly, emails.email_count_deltas, emails.analytics_counters');
    log(`seed done: ${count} emails, analytics counters and email counts in ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    await client.end();
  }
}

/** The stack the read benches measure: the emails API over BENCH_EMAILS (default 1,000,000) seeded emails. */
export async function startSeededStack(): Promise<BenchStack> {
  const stack = await startBenchStack(['keys', 'domains', 'emails', 'gateway']);
  try {
    await seedEmails(stack.databaseUrl, Number(process.env.BENCH_EMAILS ?? 1_000_000), (line) => process.stdout.write(`${line}\n`));
    return stack;
  } catch (error) {
    await stack.stop();
    throw error;
  }
}
