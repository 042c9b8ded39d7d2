import { ANALYTICS_METRICS } from '@mailroom/contracts';
import { AnalyticsService } from './analytics.service';
import { CounterRow, CountersRepository } from './counters.repository';

const HOUR = 3_600_000;

function row(start: number, counts: Partial<Record<string, number>>): CounterRow {
  const entry = { start: String(start) } as CounterRow;
  for (const metric of ANALYTICS_METRICS) entry[metric] = counts[metric] === undefined ? null : String(counts[metric]);
  return entry;
}

function serviceAnswering(rows: CounterRow[]) {
  return new AnalyticsService({ series: async () => rows } as unknown as CountersRepository);
}

describe(AnalyticsService.name, () => {
  const from = Date.parse('2026-11-20T10:30:00Z');
  const query = (service: AnalyticsService, interval: 'hour' | 'day', to: number) =>
    service.query({
      ctx: { mode: 'live', domainRestrictions: [] } as never,
      params: { fromDate: new Date(from).toISOString(), toDate: new Date(to).toISOString(), interval } as never,
    });

  it('has one zeroed point per interval from the start of the first, with each row on its own point', async () => {
    const first = Date.parse('2026-11-20T10:00:00Z');
    const answer = await query(serviceAnswering([row(first + 2 * HOUR, { sent: 3, delivered: 2 }), row(first, { bounced: 1 })]), 'hour', from + 3 * HOUR);
    expect(answer.series.map((point) => point.start)).toEqual([0, 1, 2, 3].map((hours) => new Date(first + hours * HOUR).toISOString()));
    expect(answer.series[2]).toEqual({ start: new Date(first + 2 * HOUR).toISOString(), ...zeros(), sent: 3, delivered: 2 });
    expect(answer.series[0]).toEqual({ start: new Date(first).toISOString(), ...zeros(), bounced: 1 });
    expect(answer.series[1]).toEqual({ start: new Date(first + HOUR).toISOString(), ...zeros() });
    expect(answer.totals).toMatchObject({ sent: 3, delivered: 2, bounced: 1, deliveryRate: 0.75, bounceRate: 0.25 });
  });

  it('rates what a relay took like what an MX took: through a relay nothing is ever delivered, only sent', async () => {
    const first = Date.parse('2026-11-20T10:00:00Z');
    // DELIVERY_MODE=relay (the Compose stack's): 100 recipients taken by the relay, 1 bounce reported, 20 emails opened.
    const answer = await query(serviceAnswering([row(first, { sent: 100, bounced: 1, uniqueOpens: 20, uniqueClicks: 5 })]), 'hour', from + HOUR);
    expect(answer.totals).toMatchObject({ deliveryRate: 0.9901, bounceRate: 0.0099, openRate: 0.2, clickRate: 0.05 });
  });

  it('reads the counters of a domain under its punycode name, however the domain and the restrictions are spelled', async () => {
    const asked: Array<string[] | null> = [];
    const service = new AnalyticsService({ series: async (...args: unknown[]) => (asked.push(args[4] as string[] | null), []) } as unknown as CountersRepository);
    const ask = (domainRestrictions: string[], domain?: string) =>
      service.query({
        ctx: { mode: 'live', domainRestrictions } as never,
        params: { fromDate: new Date(from).toISOString(), toDate: new Date(from + HOUR).toISOString(), interval: 'hour', domain } as never,
      });

    await ask([], 'bücher.de');
    await ask(['xn--bcher-kva.de'], 'bücher.de');
    await ask(['bücher.de'], 'xn--bcher-kva.de');
    await ask(['bücher.de', 'a.com']);
    expect(asked).toEqual([['xn--bcher-kva.de'], ['xn--bcher-kva.de'], ['xn--bcher-kva.de'], ['xn--bcher-kva.de', 'a.com']]);
    await expect(ask(['a.com'], 'bücher.de')).rejects.toMatchObject({ message: expect.stringContaining('bücher.de') });
  });

  it('counts a row that falls off the grid in the totals only', async () => {
    const day = Date.parse('2026-11-20T00:00:00Z');
    const answer = await query(serviceAnswering([row(day, { sent: 1 }), row(day + 5 * HOUR, { sent: 4 })]), 'day', from + 30 * HOUR);
    expect(answer.series.map((point) => [point.start, point.sent])).toEqual([
      [new Date(day).toISOString(), 1],
      [new Date(day + 24 * HOUR).toISOString(), 0],
    ]);
    expect(answer.totals.sent).toBe(5);
  });
});

describe('AnalyticsService limits', () => {
  const service = new AnalyticsService({ series: async () => [] } as unknown as CountersRepository);
  const ask = (fromDate: string, hours: number) =>
    service.query({
      ctx: { mode: 'live', domainRestrictions: [] } as never,
      params: { fromDate, toDate: new Date(Date.parse(fromDate) + hours * HOUR).toISOString(), interval: 'hour' } as never,
    });

  it('answers at most 2000 points, counting the point that holds a from_date off the hour', async () => {
    expect((await ask('2026-11-20T10:00:00.000Z', 2000)).series).toHaveLength(2000);
    await expect(ask('2026-11-20T10:30:00.000Z', 2000)).rejects.toMatchObject({ message: expect.stringMatching(/^interval: this range has 2001 hours; .* ask for interval=day/) });
  });

  it('names from_date for a daily range past 2000 points, there being no coarser interval to ask for', async () => {
    const daily = (fromDate: string, toDate: string) =>
      service.query({ ctx: { mode: 'live', domainRestrictions: [] } as never, params: { fromDate, toDate, interval: 'day' } as never });
    expect((await daily('2020-01-01T00:00:00Z', '2025-06-23T00:00:00Z')).series).toHaveLength(2000);
    await expect(daily('2020-01-01T00:00:00Z', '2025-06-24T00:00:00Z')).rejects.toMatchObject({ message: expect.stringMatching(/^from_date: the range from from_date to to_date has 2001 days/) });
  });

  it("answers a to_date in the last millisecond of 9999 as written, not rounded up into a year 10000 no timestamp can name", async () => {
    // Python's datetime.max.isoformat(): a client's "no end", whose digits past the millisecond round up.
    const answer = await service.query({
      ctx: { mode: 'live', domainRestrictions: [] } as never,
      params: { fromDate: '9999-12-31T00:00:00Z', toDate: '9999-12-31T23:59:59.999999Z', interval: 'hour' } as never,
    });
    expect(answer.toDate).toBe('9999-12-31T23:59:59.999Z');
    expect(answer.series).toHaveLength(24);
    expect(answer.series[23].start).toBe('9999-12-31T23:00:00.000Z');
  });
});

function zeros() {
  return Object.fromEntries(ANALYTICS_METRICS.map((metric) => [metric, 0]));
}
