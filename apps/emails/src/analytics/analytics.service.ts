import { Injectable } from '@nestjs/common';
import { ANALYTICS_METRICS, AnalyticsCounts, AnalyticsQueryPayload, AnalyticsRates, AnalyticsResponse } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import { CountersRepository } from './counters.repository';

const HOUR_MS = 3_600_000;

function zero(): AnalyticsCounts {
  return Object.fromEntries(ANALYTICS_METRICS.map((metric) => [metric, 0])) as AnalyticsCounts;
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10000) / 10000;
}

export function ratesOf(counts: AnalyticsCounts): AnalyticsRates {
  const outcomes = counts.delivered + counts.bounced + counts.failed;
  return {
    deliveryRate: ratio(counts.delivered, outcomes),
    bounceRate: ratio(counts.bounced, outcomes),
    openRate: ratio(counts.uniqueOpens, counts.delivered),
    clickRate: ratio(counts.uniqueClicks, counts.delivered),
  };
}

/** Start of the UTC hour or day containing `date`. */
function truncate(date: Date, interval: 'hour' | 'day'): number {
  const step = interval === 'hour' ? HOUR_MS : 24 * HOUR_MS;
  return Math.floor(date.getTime() / step) * step;
}

@Injectable()
export class AnalyticsService {
  constructor(private readonly counters: CountersRepository) {}

  async query({ ctx, params }: AnalyticsQueryPayload): Promise<AnalyticsResponse> {
    const from = new Date(params.fromDate);
    const to = new Date(params.toDate);
    if (from >= to) throw DomainError.validation('from_date', 'must be before to_date');
    const buckets = (to.getTime() - from.getTime()) / (params.interval === 'hour' ? HOUR_MS : 24 * HOUR_MS);
    if (buckets > 2000) throw DomainError.validation('interval', `this range has ${Math.ceil(buckets)} ${params.interval}s; ask for at most 2000 points`);
    const restricted = ctx.domainRestrictions;
    if (params.domain && restricted.length && !restricted.includes(params.domain)) {
      throw DomainError.forbidden(`This API key is restricted to other domains than ${params.domain}.`);
    }
    const domains = params.domain ? [params.domain] : restricted.length ? restricted : null;
    const rows = await this.counters.series(ctx.mode, from, to, params.interval, domains, params.tags ?? []);

    const series = new Map<number, AnalyticsCounts>();
    const step = params.interval === 'hour' ? HOUR_MS : 24 * HOUR_MS;
    for (let start = truncate(from, params.interval); start < to.getTime(); start += step) series.set(start, zero());
    const totals = zero();
    for (const row of rows) {
      const point = series.get(Number(row.start));
      for (const metric of ANALYTICS_METRICS) {
        const value = Number(row[metric] ?? 0);
        if (point) point[metric] += value;
        totals[metric] += value;
      }
    }
    return {
      object: 'analytics',
      fromDate: from.toISOString(),
      toDate: to.toISOString(),
      interval: params.interval,
      totals: { ...totals, ...ratesOf(totals) },
      series: [...series.entries()].map(([start, counts]) => ({ start: new Date(start).toISOString(), ...counts })),
    };
  }
}
