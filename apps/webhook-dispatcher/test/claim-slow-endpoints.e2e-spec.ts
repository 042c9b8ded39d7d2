import { DispatchRepository } from '../src/dispatch/dispatch.repository';
import { startWebhooksDatabase, WebhooksDatabase } from './support/webhooks-database';

const SLOW = ['wh_slow_a', 'wh_slow_b'];

/**
 * The claim query's caps for endpoints a dispatcher found slow, against real
 * Postgres: one delivery held per slow endpoint, no more than the slow room
 * for all of them, and the other endpoints' deliveries claimed as usual even
 * though the slow ones' backlog is older.
 */
describe('claiming deliveries of slow endpoints', () => {
  let database: WebhooksDatabase;
  let dispatch: DispatchRepository;

  const event = (id: string, type: string) => ({ id, type, mode: 'live' as const, createdAt: new Date().toISOString(), data: {} });
  const countByWebhook = (claimed: Array<{ webhookId: string }>) =>
    claimed.reduce<Record<string, number>>((counts, { webhookId }) => Object.assign(counts, { [webhookId]: (counts[webhookId] ?? 0) + 1 }), {});

  beforeAll(async () => {
    database = await startWebhooksDatabase();
    for (const [index, id] of SLOW.entries()) {
      await database.dataSource.query(
        `INSERT INTO webhooks.webhooks (id, mode, url, events, status, secret_sealed, failure_count, failed_deliveries_streak)
         VALUES ($1, 'live', 'https://hooks.example/slow', ARRAY[$2], 'active', 'sealed', 0, 0)`,
        [id, `test.slow.${index}`],
      );
    }
    dispatch = new DispatchRepository(database.dataSource);
  });

  afterAll(() => database?.stop());

  it('gives each slow endpoint one delivery at most, and all of them no more than the room left', async () => {
    // The slow endpoints' backlog is due first (the fixture's wh_1, subscribed to everything, gets a delivery of these too).
    const slowEvents = [0, 1, 2].flatMap((n) => SLOW.map((_, index) => event(`evt_slow_${index}_${n}`, `test.slow.${index}`)));
    expect(await dispatch.fanOut(slowEvents, -60_000, 8)).toBe(12);
    expect(await dispatch.fanOut([event('evt_other_1', 'test.other'), event('evt_other_2', 'test.other')], 0, 8)).toBe(2);

    const first = await dispatch.claimDue('worker-1', 60_000, 10, 10, {}, { ids: SLOW, room: 1 });
    const firstCounts = countByWebhook(first);
    expect(firstCounts.wh_1).toBe(8);
    expect(SLOW.map((id) => firstCounts[id] ?? 0).sort()).toEqual([0, 1]);

    const holding = SLOW.find((id) => firstCounts[id])!;
    const other = SLOW.find((id) => id !== holding)!;
    const second = await dispatch.claimDue('worker-1', 60_000, 10, 10, { [holding]: 1 }, { ids: SLOW, room: 1 });
    expect(countByWebhook(second)).toEqual({ [other]: 1 });

    expect(await dispatch.claimDue('worker-1', 60_000, 10, 10, { [holding]: 1, [other]: 1 }, { ids: SLOW, room: 0 })).toEqual([]);
    // However much room is left, one each.
    expect(countByWebhook(await dispatch.claimDue('worker-1', 60_000, 10, 10, {}, { ids: SLOW, room: 5 }))).toEqual({ wh_slow_a: 1, wh_slow_b: 1 });
  });
});
