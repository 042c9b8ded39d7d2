import { Injectable } from '@nestjs/common';
import { ANALYTICS_METRICS, AnalyticsMetric, Mode } from '@mailroom/contracts';
import { DataSource } from 'typeorm';

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

  /** Applies an event once: a redelivered event id changes nothing. */
  async apply(increment: CounterIncrement): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const inserted = await manager.query(
        'INSERT INTO emails.analytics_applied_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING event_id',
        [increment.eventId],
      );
      if (!inserted.length || !increment.metrics.length) return inserted.length > 0;
      // '' is the all-emails row; each tag gets its own row so a tag filter needs no scan.
      const tags = ['', ...new Set(increment.tags)];
      // Likewise '*' is the all-domains row, so a query without a domain reads one row, not one per domain.
      const domains = [increment.domain, ALL_DOMAINS];
      await manager.query(
        `INSERT INTO emails.analytics_counters (mode, bucket, domain, tag, metric, value)
         SELECT $1, date_trunc('hour', $2::timestamptz), domain, tag, metric, 1
           FROM unnest($3::text[]) AS domain CROSS JOIN unnest($4::text[]) AS tag CROSS JOIN unnest($5::text[]) AS metric
         ON CONFLICT (mode, tag, bucket, domain, metric) DO UPDATE SET value = emails.analytics_counters.value + 1`,
        [increment.mode, increment.at, domains, tags, increment.metrics],
      );
      return true;
    });
  }

  async series(mode: Mode, from: Date, to: Date, interval: 'hour' | 'day', domains: string[] | null, tags: string[]): Promise<CounterRow[]> {
    return this.dataSource.query(
      `SELECT (extract(epoch FROM date_trunc($4, bucket)) * 1000)::bigint AS start, ${METRIC_COLUMNS}
         FROM emails.analytics_counters
        WHERE mode = $1 AND bucket >= date_trunc('hour', $2::timestamptz) AND bucket < $3
          AND tag = ANY($5::text[]) AND domain = ANY($6::text[])
        GROUP BY 1 ORDER BY 1`,
      [mode, from, to, interval, tags.length ? tags : [''], domains ?? [ALL_DOMAINS]],
    );
  }
}
