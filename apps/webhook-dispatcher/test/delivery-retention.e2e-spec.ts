import { Client } from 'pg';
import { DataSource, Repository } from 'typeorm';
import { encodeTime } from '@mailroom/database';
import { eventually, untilBlockedBy } from '@mailroom/testing';
import { DeliveryEntity } from '../src/database/entities/delivery.entity';
import { WebhookEntity } from '../src/database/entities/webhook.entity';
import { DeliveriesRepository } from '../src/deliveries/deliveries.repository';
import { WebhooksRepository } from '../src/webhooks/webhooks.repository';
import { startWebhooksDatabase, WebhooksDatabase } from './support/webhooks-database';

const DAY = 86_400_000;
const RETENTION = 30 * DAY;

/** The delivery log's retention purge, against real Postgres. */
describe('DeliveriesRepository.purgeFinished', () => {
  let database: WebhooksDatabase;
  let dataSource: DataSource;
  let deliveries: DeliveriesRepository;
  let serial = 0;

  /** A delivery fanned out `ageDays` ago (its id carries that time), last changed `updatedDaysAgo` ago. */
  const delivery = async (ageDays: number, status: string, updatedDaysAgo = ageDays, attempts = 1): Promise<string> => {
    const id = `whd_${encodeTime(Date.now() - ageDays * DAY)}ABCDEFGHJK${String(++serial).padStart(6, '0')}`;
    await dataSource.query(
      `INSERT INTO webhooks.deliveries (id, webhook_id, event_id, event_type, payload, status, attempts, attempt_limit, created_at, updated_at)
       VALUES ($1, 'wh_1', $1, 'email.sent', '{}', $2, $3, 8, now() - make_interval(days => $4), now() - make_interval(days => $5))`,
      [id, status, attempts, ageDays, updatedDaysAgo],
    );
    for (let attempt = 1; attempt <= attempts; attempt++) {
      await dataSource.query(`INSERT INTO webhooks.delivery_attempts (delivery_id, attempt, started_at, duration_ms) VALUES ($1, $2, now(), 5)`, [id, attempt]);
    }
    return id;
  };
  const remaining = async (): Promise<string[]> => (await dataSource.query(`SELECT id FROM webhooks.deliveries ORDER BY id`)).map((row: { id: string }) => row.id);

  beforeAll(async () => {
    database = await startWebhooksDatabase();
    dataSource = database.dataSource;
    deliveries = new DeliveriesRepository(dataSource.getRepository(DeliveryEntity));
  });

  afterAll(() => database?.stop());

  it('deletes finished deliveries past the retention with their attempt logs, and nothing else', async () => {
    const oldSucceeded = await delivery(45, 'succeeded', 45, 3);
    const oldFailed = await delivery(31, 'failed', 31, 8);
    const oldStillRetrying = await delivery(40, 'retrying', 40);
    const retriedByHandLately = await delivery(40, 'succeeded', 2);
    const recent = await delivery(29, 'succeeded');
    const today = await delivery(0, 'failed');

    expect(await deliveries.purgeFinished(RETENTION)).toBe(2);

    expect(await remaining()).toEqual([oldStillRetrying, retriedByHandLately, recent, today].sort());
    const orphans = await dataSource.query(`SELECT count(*)::int AS n FROM webhooks.delivery_attempts WHERE delivery_id = ANY($1::text[])`, [[oldSucceeded, oldFailed]]);
    expect(orphans).toEqual([{ n: 0 }]);
    expect(await deliveries.purgeFinished(RETENTION)).toBe(0);
  });

  it('keeps a finished delivery that a retry by hand makes due again while the purge waits for it', async () => {
    const retried = await delivery(40, 'failed', 40);
    const holder = new Client({ connectionString: (dataSource.options as { url: string }).url });
    await holder.connect();
    try {
      // The retry holds the row when the purge comes for it, and commits while the purge waits.
      await holder.query('BEGIN');
      await holder.query(
        `UPDATE webhooks.deliveries SET status = 'pending', attempt_limit = attempts + 1, next_attempt_at = now(), updated_at = now() WHERE id = $1`,
        [retried],
      );
      const purge = deliveries.purgeFinished(RETENTION);
      await untilBlockedBy(holder);
      await holder.query('COMMIT');

      expect(await purge).toBe(0);
      expect(await remaining()).toContain(retried);
    } finally {
      await holder.end();
    }
  });

  it('purges while the webhook of the deliveries it deletes is deleted, neither failing on a deadlock', async () => {
    await dataSource.query(
      `INSERT INTO webhooks.webhooks (id, mode, url, events, status, secret_sealed, failure_count, failed_deliveries_streak)
       VALUES ('wh_2', 'live', 'https://hooks.example/2', ARRAY['*'], 'active', 'sealed', 0, 0)`,
    );
    const [, middle] = [await delivery(50, 'succeeded'), await delivery(49, 'failed'), await delivery(48, 'succeeded')];
    await dataSource.query(`UPDATE webhooks.deliveries SET webhook_id = 'wh_2' WHERE webhook_id = 'wh_1'`);
    const holder = new Client({ connectionString: (dataSource.options as { url: string }).url });
    await holder.connect();
    try {
      // The middle delivery is held, so the purge and the webhook's delete each stop at it, holding what they took before.
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM webhooks.deliveries WHERE id = $1 FOR UPDATE', [middle]);
      const purge = deliveries.purgeFinished(RETENTION);
      await untilBlockedBy(holder);
      const webhookDeleted = new WebhooksRepository(dataSource.getRepository(WebhookEntity) as Repository<WebhookEntity>).delete('wh_2');
      await eventually(async () => (await dataSource.query('SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted'))[0].n >= 2 || undefined);
      await holder.query('COMMIT');

      const outcomes = await Promise.allSettled([purge, webhookDeleted]);
      expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? String(outcome.reason) : 'done'))).toEqual(['done', 'done']);
      expect(await dataSource.query(`SELECT id FROM webhooks.deliveries WHERE webhook_id = 'wh_2'`)).toEqual([]);
    } finally {
      await holder.end();
    }
  });
});
