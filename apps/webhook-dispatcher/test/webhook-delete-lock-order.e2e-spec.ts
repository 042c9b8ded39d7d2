import { eventually } from '@mailroom/testing';
import { DataSource, Repository } from 'typeorm';
import type { WebhookEntity } from '../src/database/entities/webhook.entity';
import { DispatchRepository } from '../src/dispatch/dispatch.repository';
import { WebhooksRepository } from '../src/webhooks/webhooks.repository';
import { failedAttempt } from './support/attempt-records';
import { TransactionPauses } from './support/transaction-pauses';
import { startWebhooksDatabase, WebhooksDatabase } from './support/webhooks-database';

const POLICY = { disableAfterMs: 5 * 24 * 3_600_000, disableAfterFailedDeliveries: 50 };

/**
 * DELETE /v1/webhooks/{id} and the record of an attempt both lock the
 * webhook's row and rows of its deliveries. Taken in opposite orders, they
 * deadlock (Postgres aborts one of them); so both must lock the webhook row
 * first. Against real Postgres, each test holds one of the two transactions
 * open right after its first locks, starts the other, and looks at which
 * row the second one waits for: the webhook's, before it has locked any
 * delivery. Then both must finish without an error and leave nothing behind.
 */
describe('deleting a webhook while attempts of it are recorded', () => {
  let database: WebhooksDatabase;
  let dataSource: DataSource;
  let dispatch: DispatchRepository;
  let webhooks: WebhooksRepository;
  const pauses = new TransactionPauses();
  let serial = 0;
  let webhookId = '';

  /** An event only the current test's webhook subscribes to. */
  const event = () => ({ id: `evt_${(serial += 1)}`, type: `test.${webhookId}`, mode: 'live' as const, createdAt: new Date().toISOString(), data: {} });

  /** The table whose row the one transaction waiting for a row lock waits on (it holds that row's tuple lock meanwhile). */
  const waitedOnTable = () =>
    eventually(async () => {
      const rows: Array<{ table: string }> = await dataSource.query(
        `SELECT relation::regclass::text AS table FROM pg_locks
          WHERE locktype = 'tuple' AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted)`,
      );
      return rows.length === 1 ? rows[0].table : undefined;
    }, 10_000);

  /** What is left of the current test's webhook. */
  const leftOver = async () =>
    (
      await dataSource.query(
        `SELECT (SELECT count(*) FROM webhooks.webhooks WHERE id = $1)::int AS webhooks,
                (SELECT count(*) FROM webhooks.deliveries WHERE webhook_id = $1)::int AS deliveries,
                (SELECT count(*) FROM webhooks.delivery_attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1)::int AS attempts`,
        [webhookId],
      )
    )[0];

  beforeAll(async () => {
    database = await startWebhooksDatabase();
    dataSource = database.dataSource;
    // Each test makes its own webhook; the fixture's, subscribed to everything, would take a delivery of every event.
    await dataSource.query(`DELETE FROM webhooks.webhooks WHERE id = 'wh_1'`);
    dispatch = new DispatchRepository(pauses.wrap(dataSource));
    webhooks = new WebhooksRepository({ manager: pauses.wrap(dataSource.manager) } as unknown as Repository<WebhookEntity>);
  });

  afterAll(() => database?.stop());

  beforeEach(async () => {
    webhookId = `wh_delete_${(serial += 1)}`;
    await dataSource.query(
      `INSERT INTO webhooks.webhooks (id, mode, url, events, status, secret_sealed, failure_count, failed_deliveries_streak)
       VALUES ($1, 'live', 'https://hooks.example/1', ARRAY['test.' || $1], 'active', 'sealed', 0, 0)`,
      [webhookId],
    );
  });

  it('a delete that comes while an attempt is being recorded waits at the webhook row, then removes the webhook with everything recorded', async () => {
    expect(await dispatch.fanOut([event(), event(), event()], 0, 8)).toBe(3);
    const claimed = await dispatch.claimDue('worker-1', 60_000, 3, 10, {});
    expect(claimed).toHaveLength(3);

    // The recorder has written its deliveries' new state and their attempt log, and not yet the webhook's health.
    const written = pauses.pause('after', (sql) => sql.includes('INSERT INTO webhooks.delivery_attempts'));
    const recording = dispatch.recordAttempts(claimed.slice(0, 2).map(failedAttempt), POLICY);
    await written.reached;
    const deleting = webhooks.delete(webhookId);
    const waitedOn = await waitedOnTable().finally(() => written.release());
    const [recorded, deleted] = await Promise.all([recording, deleting]);
    expect(waitedOn).toBe('webhooks.webhooks');
    expect([...recorded].sort()).toEqual(claimed.slice(0, 2).map((delivery) => delivery.id).sort());
    expect(deleted).toBe(true);
    expect(await leftOver()).toEqual({ webhooks: 0, deliveries: 0, attempts: 0 });
  });

  it('an attempt recorded while a delete is under way waits at the webhook row, then records nothing', async () => {
    expect(await dispatch.fanOut([event(), event()], 0, 8)).toBe(2);
    const claimed = await dispatch.claimDue('worker-1', 60_000, 2, 10, {});
    expect(claimed).toHaveLength(2);

    // The delete has run its first statement, whatever it locks first.
    const started = pauses.pause('after', () => true);
    const deleting = webhooks.delete(webhookId);
    await started.reached;
    const recording = dispatch.recordAttempts(claimed.map(failedAttempt), POLICY);
    const waitedOn = await waitedOnTable().finally(() => started.release());
    const [deleted, recorded] = await Promise.all([deleting, recording]);
    expect(waitedOn).toBe('webhooks.webhooks');
    expect(deleted).toBe(true);
    expect([...recorded]).toEqual([]);
    expect(await leftOver()).toEqual({ webhooks: 0, deliveries: 0, attempts: 0 });
  });

  it('deletes webhooks while batches of their attempts are recorded, with no error and nothing left behind', async () => {
    const ids = Array.from({ length: 8 }, (_, index) => `${webhookId}_${index}`);
    await dataSource.query(
      `INSERT INTO webhooks.webhooks (id, mode, url, events, status, secret_sealed, failure_count, failed_deliveries_streak)
       SELECT id, 'live', 'https://hooks.example/1', ARRAY['test.' || $2], 'active', 'sealed', 0, 0 FROM unnest($1::text[]) AS id`,
      [ids, webhookId],
    );
    expect(await dispatch.fanOut(Array.from({ length: 6 }, event), 0, 8)).toBe(6 * (ids.length + 1));
    const claimed = await dispatch.claimDue('worker-1', 60_000, 100, 100, {});
    // Batches that mix webhooks, recorded while every webhook is deleted.
    const batches = [0, 1, 2].map((offset) => claimed.filter((_, index) => index % 3 === offset).map(failedAttempt));
    const results = await Promise.allSettled([...batches.map((batch) => dispatch.recordAttempts(batch, POLICY)), ...[webhookId, ...ids].map((id) => webhooks.delete(id))]);
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    const [left] = await dataSource.query(
      `SELECT (SELECT count(*) FROM webhooks.webhooks WHERE id = ANY($1))::int AS webhooks, (SELECT count(*) FROM webhooks.deliveries)::int AS deliveries,
              (SELECT count(*) FROM webhooks.delivery_attempts)::int AS attempts`,
      [[webhookId, ...ids]],
    );
    expect(left).toEqual({ webhooks: 0, deliveries: 0, attempts: 0 });
  });
});
