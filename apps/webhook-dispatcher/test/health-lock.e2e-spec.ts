import { DataSource } from 'typeorm';
import { DispatchRepository } from '../src/dispatch/dispatch.repository';
import { failedAttempt } from './support/attempt-records';
import { TransactionPauses } from './support/transaction-pauses';
import { startWebhooksDatabase, WebhooksDatabase } from './support/webhooks-database';

/** Longer than an unblocked fan-out takes: one still waiting after this is waiting for a lock. */
const BLOCKED_AFTER_MS = 3000;

/**
 * Recording a failed attempt updates the webhook's health under a row lock,
 * in the same transaction as the rest of the batch. Against real Postgres:
 * while that transaction is open, new events for the same webhook must still
 * fan out, i.e. the lock must not conflict with the foreign key check of a
 * delivery insert.
 */
describe('webhook health updates and event fan-out', () => {
  let database: WebhooksDatabase;
  let dataSource: DataSource;
  let repository: DispatchRepository;
  const pauses = new TransactionPauses();

  const event = (id: string) => ({ id, type: 'email.bounced', mode: 'live' as const, createdAt: new Date().toISOString(), data: { emailId: 'email_1' } });

  beforeAll(async () => {
    database = await startWebhooksDatabase();
    dataSource = database.dataSource;
    repository = new DispatchRepository(pauses.wrap(dataSource));
  });

  afterAll(() => database?.stop());

  it('fans out new events for a webhook while a failed attempt of it is being recorded', async () => {
    expect(await repository.fanOut([event('evt_1')], 0, 8)).toBe(1);
    const [claimed] = await repository.claimDue('worker-1', 60_000, 1, 10, {});
    expect(claimed?.webhookId).toBe('wh_1');

    const healthUpdate = pauses.pause('before', (sql) => /^\s*UPDATE webhooks\.webhooks\s+SET status/.test(sql));
    const recording = repository.recordAttempts(
      [failedAttempt(claimed)],
      { disableAfterMs: 5 * 24 * 3_600_000, disableAfterFailedDeliveries: 50 },
    );
    try {
      await healthUpdate.reached;
      let timer: NodeJS.Timeout | undefined;
      const blocked = new Promise<'blocked'>((resolve) => (timer = setTimeout(() => resolve('blocked'), BLOCKED_AFTER_MS)));
      const fannedOut = await Promise.race([repository.fanOut([event('evt_2')], 0, 8), blocked]);
      clearTimeout(timer);
      expect(fannedOut).toBe(1);
    } finally {
      healthUpdate.release();
    }
    expect([...(await recording)]).toEqual([claimed.id]);
    const [webhook] = await dataSource.query(`SELECT status, failure_count FROM webhooks.webhooks WHERE id = 'wh_1'`);
    expect(webhook).toEqual({ status: 'failing', failure_count: 1 });
  });
});
