import type { DataSource } from 'typeorm';
import { metricsOf } from './event-metrics';
import { CounterIncrement, CountersRepository } from './counters.repository';

/** The parameters of every statement applyMany runs, through a stand-in for Postgres that takes every event id as new. */
function recordingDataSource(statements: unknown[][]): DataSource {
  const query = async (sql: string | { text: string; values: unknown[] }, parameters?: unknown[]) => {
    const [text, values] = typeof sql === 'string' ? [sql, parameters ?? []] : [sql.text, sql.values];
    statements.push(values);
    return text.includes('analytics_applied_events') ? (values[0] as string[]).map((id) => ({ event_id: id })) : [];
  };
  return { transaction: async (work: (manager: unknown) => Promise<unknown>) => work({ query }) } as unknown as DataSource;
}

describe(CountersRepository.name, () => {
  it('writes a metric an event lists many times as one row adding that many, not one row per listing', async () => {
    const statements: unknown[][] = [];
    const counters = new CountersRepository(recordingDataSource(statements));
    const tags = Array.from({ length: 20 }, (_, index) => `tag${index}`);
    const recipients = Array.from({ length: 150 }, (_, index) => `r${index}@example.com`);
    // An email to 150 recipients, every one on the suppression list, with 20 tags: 150 × 21 tag rows × 2 domain rows was
    // 6,300 rows, and a batch of 500 such events 3 million (800 MB of memory, a minute of work).
    const increments: CounterIncrement[] = Array.from({ length: 10 }, (_, index) => ({
      eventId: `evt_${index}`,
      mode: 'live',
      at: new Date('2026-11-20T10:17:00Z'),
      domain: 'a.test',
      tags,
      metrics: metricsOf({ type: 'email.suppressed', data: { recipients } }),
    }));
    await counters.applyMany(increments);
    const [, upsert] = statements;
    // Its '' row and one per tag, under its domain and under all domains, for each event.
    expect((upsert[0] as unknown[]).length).toBe(10 * 21 * 2);
    expect(upsert[5]).toEqual(Array(10 * 21 * 2).fill(150));
  });
});
