import { Injectable } from '@nestjs/common';
import { ANALYTICS_METRICS, AnalyticsMetric, Mode } from '@mailroom/contracts';
import { DataSource } from 'typeorm';
import { deleteInBatches, firstIdAt, preparedStatements } from '@mailroom/database';
import type { EmailStatus, RecipientStatus } from '../delivery/status-summary';
import type { ComplainedRecipient } from './complaint-count';

/** The domain of the rows that sum every domain (see migration 1763800000293). */
const ALL_DOMAINS = '*';

export interface CounterIncrement {
  eventId: string;
  mode: Mode;
  at: Date;
  domain: string;
  tags: string[];
  metrics: AnalyticsMetric[];
}

/** One point of the series: its start (epoch ms) and each metric's sum, as bigint text. */
export type CounterRow = { start: string } & Record<AnalyticsMetric, string | null>;

/** One column per metric, so a point is one row: a 2,000-point series reads 2,000 rows, not 2,000 × 12. */
const METRIC_COLUMNS = ANALYTICS_METRICS.map((metric) => `sum(value) FILTER (WHERE metric = '${metric}')::bigint AS "${metric}"`).join(', ');

@Injectable()
export class CountersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Applies events once each, in one transaction: an event id seen before
   * (a redelivery, or the same event twice in the batch) changes nothing.
   * Answers, per increment, whether it was applied now.
   */
  async applyMany(increments: CounterIncrement[]): Promise<boolean[]> {
    return this.dataSource.transaction(async (manager) => {
      const sql = preparedStatements(manager);
      // In id order, as every batch inserts them: a redelivered event can be in another replica's batch at the same
      // time, in another order, and two batches taking the same ids' index entries in opposite orders deadlocked.
      const inserted: Array<{ event_id: string }> = await sql.query(
        'INSERT INTO emails.analytics_applied_events (event_id) SELECT id FROM unnest($1::text[]) AS id ORDER BY id ON CONFLICT DO NOTHING RETURNING event_id',
        [increments.map((increment) => increment.eventId)],
      );
      const fresh = new Set(inserted.map((row) => row.event_id));
      const applied = increments.map((increment) => fresh.delete(increment.eventId));
      const rows = counterRows(increments.filter((_, index) => applied[index]));
      if (!rows.mode.length) return applied;
      // Sorted and summed per row before the upsert: no row is touched twice in one statement, and
      // concurrent batches (other replicas) lock shared rows in the same order, so they cannot deadlock.
      await sql.query(
        `INSERT INTO emails.analytics_counters (mode, bucket, domain, tag, metric, value)
         SELECT mode, date_trunc('hour', at, 'UTC'), domain, tag, metric, sum(added)::bigint
           FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::bigint[]) AS c(mode, at, domain, tag, metric, added)
          GROUP BY 1, 2, 3, 4, 5
          ORDER BY 1, 4, 2, 3, 5
         ON CONFLICT (mode, tag, bucket, domain, metric) DO UPDATE SET value = emails.analytics_counters.value + EXCLUDED.value`,
        [rows.mode, rows.at, rows.domain, rows.tag, rows.metric, rows.added],
      );
      return applied;
    });
  }

  /**
   * Forgets applied-event ids older than `retentionMs`: the stream cannot
   * deliver them again by then, so the table stays a few days long instead of
   * holding every event ever counted. Our ids are evt_<ULID> and sort by time,
   * so the primary key bounds the scan: the ids below the cutoff's, and those
   * above any id of ours made yet, where only other publishers' ids sort (a
   * lower-case ULID, another prefix: the README admits any printable id, and
   * these were kept for ever). applied_at guards any id from another
   * publisher in either range that was applied recently.
   */
  async purgeAppliedEvents(retentionMs: number): Promise<number> {
    const now = Date.now();
    const cutoff = now - retentionMs;
    const purge = (idRange: string, idBound: string) =>
      deleteInBatches(this.dataSource, {
        table: 'emails.analytics_applied_events',
        key: 'event_id',
        where: `${idRange} AND applied_at < to_timestamp($2::double precision / 1000)`,
        parameters: [idBound, cutoff],
      });
    return (await purge('event_id < $1', firstIdAt('evt_', cutoff))) + (await purge('event_id > $1', firstIdAt('evt_', now)));
  }

  /** The from domain and tags of an email, for an event that names the email but carries no summary; null when there is no such email of `mode` (it is gone, say). */
  async summaryOf(mode: Mode, emailId: string): Promise<{ domain: string; tags: string[] } | null> {
    const rows: Array<{ from_domain: string; tags: string[] }> = await this.dataSource.query('SELECT from_domain, tags FROM emails.emails WHERE id = $1 AND mode = $2', [emailId, mode]);
    return rows[0] ? { domain: rows[0].from_domain, tags: rows[0].tags } : null;
  }

  /** An email's summary and where `recipient` stands on it, for a complaint naming both; null when there is no such email of `mode`. */
  async complainedEmailOf(mode: Mode, emailId: string, recipient: string): Promise<({ domain: string; tags: string[] } & ComplainedRecipient) | null> {
    const rows: Array<{ from_domain: string; tags: string[]; status: EmailStatus; claimed: boolean; recipient_status: RecipientStatus | null; recipient_marked: boolean }> =
      await this.dataSource.query(
        `SELECT e.from_domain, e.tags, e.status, e.lease_owner IS NOT NULL AS claimed, r.status AS recipient_status, r.complained_at IS NOT NULL AS recipient_marked
           FROM emails.emails e LEFT JOIN emails.recipients r ON r.email_id = e.id AND r.address = $3
          WHERE e.id = $1 AND e.mode = $2`,
        [emailId, mode, recipient],
      );
    const [row] = rows;
    if (!row) return null;
    return {
      domain: row.from_domain,
      tags: row.tags,
      emailStatus: row.status,
      recipientStatus: row.recipient_status ?? undefined,
      attemptInFlight: row.claimed,
      recipientMarked: row.recipient_marked,
    };
  }

  async series(mode: Mode, from: Date, to: Date, interval: 'hour' | 'day', domains: string[] | null, tags: string[]): Promise<CounterRow[]> {
    // Grouped before the start is computed, so the numeric epoch is worked out once per point, not once per
    // counter row; buckets are whole UTC hours already, so an hourly series groups on the column itself.
    // Hours and days are UTC's whatever the server's TimeZone, as the series the service builds around them.
    const point = interval === 'hour' ? 'bucket' : `date_trunc('day', bucket, 'UTC')`;
    return this.dataSource.query(
      `SELECT (extract(epoch FROM ${point}) * 1000)::bigint AS start, ${METRIC_COLUMNS}
         FROM emails.analytics_counters
        WHERE mode = $1 AND bucket >= date_trunc('hour', $2::timestamptz, 'UTC') AND bucket < $3
          AND tag = ANY($4::text[]) AND domain = ANY($5::text[])
        GROUP BY ${point}`,
      [mode, from, to, tags.length ? tags : [''], domains ?? [ALL_DOMAINS]],
    );
  }
}

/**
 * The counter rows the events add to, as parallel columns, each with what it
 * adds: '' is the all-emails row and each tag has its own, so a tag filter
 * needs no scan; likewise '*' sums every domain, so a query without a domain
 * reads one row. A metric an event lists several times (the recipients of an
 * email.suppressed) is one row adding that many: a row per listing made an
 * email to 150 suppressed recipients with 20 tags 6,300 rows, and a batch of
 * 500 such events 3 million, 800 MB of memory and a minute of work.
 */
function counterRows(increments: CounterIncrement[]) {
  const rows = { mode: [] as string[], at: [] as Date[], domain: [] as string[], tag: [] as string[], metric: [] as string[], added: [] as number[] };
  for (const increment of increments) {
    const counts = new Map<AnalyticsMetric, number>();
    for (const metric of increment.metrics) counts.set(metric, (counts.get(metric) ?? 0) + 1);
    for (const domain of [increment.domain, ALL_DOMAINS]) {
      for (const tag of ['', ...new Set(increment.tags)]) {
        for (const [metric, added] of counts) {
          rows.mode.push(increment.mode);
          rows.at.push(increment.at);
          rows.domain.push(domain);
          rows.tag.push(tag);
          rows.metric.push(metric);
          rows.added.push(added);
        }
      }
    }
  }
  return rows;
}
