import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { firstIdAt } from '@mailroom/database';
import type { EmailListFilters, RequestContext } from '@mailroom/contracts';
import { YEAR_10000_MS } from './created-at-bounds';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** [start, end) in epoch ms; an infinite end is an open side. */
type Span = [number, number];

/**
 * How a created_at range splits over the count tables: whole UTC days from
 * email_counts, whole hours at their edges from email_counts_hourly, and the
 * sub-hour rest (at most an hour at each end) counted in emails itself.
 * `buckets` is the span the count tables (and pending deltas) cover.
 */
export interface CountPlan {
  days: Span | null;
  hours: Span[];
  rows: Span[];
  buckets: Span | null;
}

const floorTo = (ms: number, step: number) => (Number.isFinite(ms) ? Math.floor(ms / step) * step : ms);
const ceilTo = (ms: number, step: number) => (Number.isFinite(ms) ? Math.ceil(ms / step) * step : ms);

export function planCount(from: number, to: number): CountPlan {
  const firstHour = ceilTo(from, HOUR_MS);
  const lastHour = floorTo(to, HOUR_MS);
  if (firstHour >= lastHour) return { days: null, hours: [], rows: from < to ? [[from, to]] : [], buckets: null };
  const rows = [[from, firstHour], [lastHour, to]].filter(([start, end]) => start < end) as Span[];
  const firstDay = ceilTo(firstHour, DAY_MS);
  const lastDay = floorTo(lastHour, DAY_MS);
  if (firstDay >= lastDay) return { days: null, hours: [[firstHour, lastHour]], rows, buckets: [firstHour, lastHour] };
  const hours = [[firstHour, firstDay], [lastDay, lastHour]].filter(([start, end]) => start < end) as Span[];
  return { days: [firstDay, lastDay], hours, rows, buckets: [firstHour, lastHour] };
}

/** A bound rounded up past 9999-12-31 (from_date=9999-12-31T23:59:59Z) bounds the same as infinity. */
const timestamp = (ms: number) => (ms === -Infinity ? '-infinity' : ms >= YEAR_10000_MS ? 'infinity' : new Date(ms).toISOString());
const day = (ms: number) => {
  const bound = timestamp(ms);
  return bound.endsWith('infinity') ? bound : bound.slice(0, 10);
};

/**
 * The bucket keys of a tag filter: '' for none, else the tag or the pair (see
 * the migration). The trigger orders a pair with `a < b` in the database's
 * collation, which is code-point order only under C: an English one puts
 * `a B` where JavaScript's sort puts `B a`, and the count read the empty
 * bucket. A pair has one bucket under any one collation, so reading both
 * orders counts it once, and stays exact if the database's collation changes.
 */
function bucketKeysOf(tags: string[]): string[] {
  return tags.length === 2 ? [tags.join(' '), [...tags].reverse().join(' ')] : [tags.join(' ')];
}

/** Reads totalCount of GET /v1/emails from the count tables instead of counting rows. */
@Injectable()
export class EmailCountsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Buckets hold single tags and pairs, not recipients: ALL of three or more tags, or a `to`, needs a row count. */
  static canCount(filters: EmailListFilters): boolean {
    return !filters.to && new Set(filters.tags).size <= 2;
  }

  /**
   * Exact at any moment: the buckets, plus the deltas not yet folded into
   * them, plus the sub-hour edges counted in emails, all in one snapshot
   * (one statement; `manager` puts it in the caller's, beside the page it counts).
   */
  async count(ctx: RequestContext, filters: EmailListFilters, manager: EntityManager = this.dataSource.manager): Promise<number> {
    const from = filters.fromDate ? Date.parse(filters.fromDate) : -Infinity;
    const to = filters.toDate ? Date.parse(filters.toDate) : Infinity;
    const plan = planCount(from, to);
    const tags = [...new Set(filters.tags)];
    const restricted = ctx.domainRestrictions.length ? ctx.domainRestrictions : null;
    // $1–$3 appear in every part; other parameters only when their part does (an unused one has no type).
    const params: unknown[] = [ctx.mode, filters.status ?? null, restricted];
    const param = (value: unknown) => `$${params.push(value)}`;
    const scope = `mode = $1::text AND ($2::text IS NULL OR status = $2) AND ($3::text[] IS NULL OR domain = ANY($3))`;
    const tagKeys = plan.buckets ? param(bucketKeysOf(tags)) : '';
    const keyFilter = `${scope} AND tag = ANY(${tagKeys}::text[])`;

    const parts: string[] = [];
    if (plan.days) {
      const [start, end] = plan.days;
      parts.push(`SELECT count FROM emails.email_counts
        WHERE ${keyFilter} AND day >= ${param(day(start))}::date AND day < ${param(day(end))}::date`);
    }
    for (const [start, end] of plan.hours) {
      parts.push(`SELECT count FROM emails.email_counts_hourly
        WHERE ${keyFilter} AND hour >= ${param(timestamp(start))}::timestamptz AND hour < ${param(timestamp(end))}::timestamptz`);
    }
    if (plan.buckets) {
      const [start, end] = plan.buckets;
      parts.push(`SELECT delta FROM emails.email_count_deltas
        WHERE ${keyFilter} AND hour >= ${param(timestamp(start))}::timestamptz AND hour < ${param(timestamp(end))}::timestamptz`);
    }
    const tagsParam = plan.rows.length ? param(tags) : '';
    for (const [start, end] of plan.rows) {
      // The id range keeps this on the (mode, id) or (mode, status, id) index: at most an hour of rows.
      parts.push(`SELECT count(*) FROM emails.emails
        WHERE mode = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text[] IS NULL OR from_domain = ANY($3))
          AND tags @> ${tagsParam}::text[]
          AND id >= ${param(firstIdAt('email_', start))} AND id < ${param(firstIdAt('email_', end + 1))}
          AND created_at >= ${param(timestamp(start))}::timestamptz AND created_at < ${param(timestamp(end))}::timestamptz`);
    }
    if (!parts.length) return 0;
    const [row] = await manager.query(
      `SELECT coalesce(sum(n), 0)::bigint AS count FROM (${parts.map((part) => `(${part})`).join(' UNION ALL ')}) AS counted(n)`,
      params,
    );
    return Number(row.count);
  }

  /**
   * Moves every pending delta into the hourly and daily buckets in one
   * transaction. The advisory lock keeps replicas from folding at once (their
   * upserts would only wait on each other); false when another holds it.
   *
   * A bucket the fold brings to 0 is deleted: it counts nothing, and every
   * email of an hour leaves its queued bucket once delivered, and every
   * bucket of the emails EMAIL_RETENTION deletes, so the count tables would
   * otherwise keep a row per hour, status, domain, tag and pair of tags for
   * ever. Only this fold writes the buckets, under the lock, so no delta can
   * land on a bucket between its upsert and its deletion.
   */
  async foldDeltas(lockKey: number): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [lock] = await manager.query('SELECT pg_try_advisory_xact_lock($1) AS held', [lockKey]);
      if (!lock.held) return false;
      const [emptied]: Array<{ hours: string; days: string }> = await manager.query(`
        WITH moved AS (
          DELETE FROM emails.email_count_deltas RETURNING mode, hour, status, domain, tag, delta
        ), hourly AS (
          INSERT INTO emails.email_counts_hourly AS c (mode, hour, status, domain, tag, count)
          SELECT mode, hour, status, domain, tag, sum(delta) FROM moved GROUP BY 1, 2, 3, 4, 5
          ON CONFLICT (mode, tag, hour, status, domain) DO UPDATE SET count = c.count + EXCLUDED.count
          RETURNING mode, hour, status, domain, tag, count
        ), daily AS (
          INSERT INTO emails.email_counts AS c (mode, day, status, domain, tag, count)
          SELECT mode, (hour AT TIME ZONE 'UTC')::date, status, domain, tag, sum(delta) FROM moved GROUP BY 1, 2, 3, 4, 5
          ON CONFLICT (mode, tag, day, status, domain) DO UPDATE SET count = c.count + EXCLUDED.count
          RETURNING mode, day, status, domain, tag, count
        )
        SELECT (SELECT coalesce(jsonb_agg(to_jsonb(h) - 'count'), '[]') FROM hourly h WHERE count = 0)::text AS hours,
               (SELECT coalesce(jsonb_agg(to_jsonb(d) - 'count'), '[]') FROM daily d WHERE count = 0)::text AS days`);
      // A statement cannot change a row its own upsert wrote, hence these second ones.
      await dropEmptied(manager, 'emails.email_counts_hourly', 'hour timestamptz', emptied.hours);
      await dropEmptied(manager, 'emails.email_counts', 'day date', emptied.days);
      return true;
    });
  }
}

/** Deletes the buckets of `table` named in `keys` (a JSON array of their keys) that are still at 0; most folds name none. */
async function dropEmptied(manager: EntityManager, table: string, bucket: 'hour timestamptz' | 'day date', keys: string): Promise<void> {
  if (keys === '[]') return;
  const column = bucket.split(' ')[0];
  await manager.query(
    `DELETE FROM ${table} c
      USING jsonb_to_recordset($1::jsonb) AS z(mode text, ${bucket}, status text, domain text, tag text)
      WHERE c.mode = z.mode AND c.tag = z.tag AND c.${column} = z.${column} AND c.status = z.status AND c.domain = z.domain AND c.count = 0`,
    [keys],
  );
}
