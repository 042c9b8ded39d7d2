import type { EventEnvelope } from '@mailroom/contracts';
import { DispatchRepository } from '../src/dispatch/dispatch.repository';
import { startWebhooksDatabase, WebhooksDatabase } from './support/webhooks-database';

/**
 * Fan-out of an event JetStream delivered twice (an ack lost, a relay's
 * republish past the duplicate window) by two dispatcher replicas at the same
 * time, against real Postgres: one delivery per webhook and event, and
 * neither batch fails.
 */
describe('fan-out of the same events by two replicas at once', () => {
  let database: WebhooksDatabase;
  let repository: DispatchRepository;

  beforeAll(async () => {
    database = await startWebhooksDatabase();
    repository = new DispatchRepository(database.dataSource);
    await database.dataSource.query(
      `INSERT INTO webhooks.webhooks (id, mode, url, events, status, secret_sealed, failure_count, failed_deliveries_streak)
       SELECT 'wh_' || g, 'live', 'https://hooks.example/' || g, ARRAY['*'], 'active', 'sealed', 0, 0 FROM generate_series(2, 4) g`,
    );
  });

  afterAll(() => database?.stop());

  it('writes one delivery per webhook and event when the batches hold the same events in different orders', async () => {
    for (let round = 0; round < 10; round++) {
      await database.dataSource.query('TRUNCATE webhooks.deliveries CASCADE');
      const events: EventEnvelope[] = Array.from({ length: 200 }, (_, index) => ({
        id: `evt_round${round}_${String(index).padStart(3, '0')}`,
        type: 'email.sent',
        mode: 'live',
        createdAt: new Date().toISOString(),
        data: {},
      }));
      const results = await Promise.allSettled([repository.fanOut(events, 0, 3), repository.fanOut([...events].reverse(), 0, 3)]);
      expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : result.status))).toEqual(['fulfilled', 'fulfilled']);
      // Four webhooks take every event: 800 deliveries between the two batches, each written by one of them.
      const created = results.map((result) => (result as PromiseFulfilledResult<number>).value);
      expect(created[0] + created[1]).toBe(800);
      const [{ deliveries, distinct }] = await database.dataSource.query(
        'SELECT count(*)::int AS deliveries, count(DISTINCT (webhook_id, event_id))::int AS distinct FROM webhooks.deliveries',
      );
      expect({ deliveries, distinct }).toEqual({ deliveries: 800, distinct: 800 });
    }
  });
});
