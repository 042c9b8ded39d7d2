import { Injectable } from '@nestjs/common';
import { ANALYTICS_METRICS, AnalyticsCounts, AnalyticsQueryPayload, AnalyticsRates, AnalyticsResponse, isBeforeToTheDigit, millisecondsRoundedUp, normalizeDomainName } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import { CountersRepository } from './counters.repository';

const HOUR_MS = 3_600_000;
/** The longest series answered: 2,000 hourly points is 83 days, 2,000 daily ones five and a half years. */
const MAX_POINTS = 2000;
/**
 * 9999-12-31T23:59:59.999Z, the last instant an ISO 8601 timestamp of four-digit years names. A to_date in its
 * millisecond with digits past it (Python's datetime.max.isoformat()) rounded up to +010000-01-01, an answer no
 * client's date-time parser reads; kept at this instant, its hour still counts.
 */
const LAST_TIMESTAMP_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

type SeriesPoint = AnalyticsCounts & { start: string };

/** Every metric at 0, after `start` when there is one: a series has up to 2,000 of these, so no Object.fromEntries. */
function zeroed<T extends object>(base: T): T & AnalyticsCounts {
  const counts = base as T & AnalyticsCounts;
  for (const metric of ANALYTICS_METRICS) counts[metric] = 0;
  return counts;
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10000) / 10000;
}

/**
 * Rates over the recipients a server took: `sent` counts those an MX accepted (also `delivered`) and those a relay
 * took on (DELIVERY_MODE=relay, where Mailroom never learns more, so nothing is `delivered`). Over `delivered`,
 * every rate of a relay deployment read 0, and its bounceRate 1 after a single reported bounce.
 */
export function ratesOf(counts: AnalyticsCounts): AnalyticsRates {
  const accepted = counts.sent;
  const outcomes = accepted + counts.bounced + counts.failed;
  return {
    deliveryRate: ratio(accepted, outcomes),
    bounceRate: ratio(counts.bounced, outcomes),
    openRate: ratio(counts.uniqueOpens, accepted),
    clickRate: ratio(counts.uniqueClicks, accepted),
  };
}

/**
 * A domain as counters are keyed (from_domain's lower-case punycode): the
 * `domain` parameter accepts bücher.de as well as xn--bcher-kva.de. Key
 * restrictions are stored in that form since keys migration 1763800000010;
 * a gateway may still hold a key verified before it ran.
 */
const counterDomain = (name: string) => normalizeDomainName(name) || name;

const stepMs = (interval: 'hour' | 'day') => (interval === 'hour' ? HOUR_MS : 24 * HOUR_MS);

/** Start of the UTC hour or day containing `date`. */
function truncate(date: Date, interval: 'hour' | 'day'): number {
  return Math.floor(date.getTime() / stepMs(interval)) * stepMs(interval);
}

/**
 * A range of more points than a series holds. Hourly, `interval` is what to change (daily holds 24 times the range);
 * daily, there is no coarser interval, so the range itself is at fault, and the answer names `from_date`.
 */
function tooManyPoints(points: number, interval: 'hour' | 'day'): DomainError {
  if (interval === 'hour') return DomainError.validation('interval', `this range has ${points} hours; a series holds at most ${MAX_POINTS} points: ask for interval=day, or a shorter range`);
  return DomainError.validation('from_date', `the range from from_date to to_date has ${points} days; a series holds at most ${MAX_POINTS} points: ask for a shorter range`);
}

@Injectable()
export class AnalyticsService {
  constructor(private readonly counters: CountersRepository) {}

  async query({ ctx, params }: AnalyticsQueryPayload): Promise<AnalyticsResponse> {
    if (!isBeforeToTheDigit(params.fromDate, params.toDate)) throw DomainError.validation('from_date', 'must be before to_date');
    // Each bound counts the hour it falls in. Date.parse drops digits past the millisecond: from_date keeps its
    // hour so, but to_date 11:00:00.0005 fell back to 11:00 and left out the 11:00 hour it is in.
    const from = new Date(params.fromDate);
    const to = new Date(Math.min(millisecondsRoundedUp(params.toDate), LAST_TIMESTAMP_MS));
    const step = stepMs(params.interval);
    // Counted on the grid the series is built on, which starts at the hour or day holding from_date: measured
    // from from_date itself, a range that did not start on the grid passed with one point more than the limit.
    const first = truncate(from, params.interval);
    const points = Math.ceil((to.getTime() - first) / step);
    if (points > MAX_POINTS) throw tooManyPoints(points, params.interval);
    const restricted = ctx.domainRestrictions.map(counterDomain);
    const domain = params.domain ? counterDomain(params.domain) : undefined;
    if (domain && restricted.length && !restricted.includes(domain)) {
      throw DomainError.forbidden(`This API key is restricted to other domains than ${params.domain}.`);
    }
    const domains = domain ? [domain] : restricted.length ? restricted : null;
    const rows = await this.counters.series(ctx.mode, from, to, params.interval, domains, params.tags ?? []);

    // One point per interval, in order; a row lands on its point by arithmetic, not a lookup.
    const series: SeriesPoint[] = [];
    for (let start = first; start < to.getTime(); start += step) series.push(zeroed({ start: new Date(start).toISOString() }));
    const totals = zeroed({});
    for (const row of rows) {
      // undefined for a start off the grid (a fraction or out of range): such a row still counts in the totals.
      const point = series[(Number(row.start) - first) / step] as SeriesPoint | undefined;
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
      series,
    };
  }
}
