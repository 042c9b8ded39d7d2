import { DataSource, EntityManager } from 'typeorm';
import { ClaimedDelivery, DispatchRepository } from '../src/dispatch/dispatch.repository';
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
  /** Set while a test holds the recorder's transaction open just before its health UPDATE. */
  let pauseBeforeHealthUpdate: Promise<void> | undefined;
  let reachedHealthUpdate: () => void = () => undefined;

  /** The real DataSource, with the recorder's transactions paused where the test says. */
  const pausable = (real: DataSource): DataSource =>
    new Proxy(real, {
      get(target, property, receiver) {
        if (property !== 'transaction') return Reflect.get(target, property, receiver);
        return (run: (manager: EntityManager) => Promise<unknown>) =>
          target.transaction((manager) =>
            run(
              new Proxy(manager, {
                get(inner, name, innerReceiver) {
                  if (name !== 'query') return Reflect.get(inner, name, innerReceiver);
                  // A prepared statement arrives as a pg query config rather than a text.
                  return async (sql: string | { text: string }, parameters?: unknown[]) => {
                    const text = typeof sql === 'string' ? sql : sql.text;
                    if (pauseBeforeHealthUpdate && /^\s*UPDATE webhooks\.webhooks\s+SET status/.test(text)) {
                      reachedHealthUpdate();
                      await pauseBeforeHealthUpdate;
                    }
                    return inner.query(sql as string, parameters);
                  };
                },
              }),
            ),
          );
      },
    });

  const event = (id: string) => ({ id, type: 'email.bounced', mode: 'live' as const, createdAt: new Date().toISOString(), data: { emailId: 'email_1' } });

  beforeAll(async () => {
    database = await startWebhooksDatabase();
    dataSource = database.dataSource;
    repository = new DispatchRepository(pausable(dataSource));
  });

  afterAll(() => database?.stop());

  it('fans out new events for a webhook while a failed attempt of it is being recorded', async () => {
    expect(await repository.fanOut([event('evt_1')], 0, 8)).toBe(1);
    const [claimed] = await repository.claimDue('worker-1', 60_000, 1, 10, {});
    expect(claimed?.webhookId).toBe('wh_1');

    let release: () => void = () => undefined;
    pauseBeforeHealthUpdate = new Promise((resolve) => (release = resolve));
    const reached = new Promise<void>((resolve) => (reachedHealthUpdate = resolve));
    const recording = repository.recordAttempts(
      [failedAttempt(claimed)],
      { disableAfterMs: 5 * 24 * 3_600_000, disableAfterFailedDeliveries: 50 },
    );
    try {
      await reached;
      let timer: NodeJS.Timeout | undefined;
      const blocked = new Promise<'blocked'>((resolve) => (timer = setTimeout(() => resolve('blocked'), BLOCKED_AFTER_MS)));
      const fannedOut = await Promise.race([repository.fanOut([event('evt_2')], 0, 8), blocked]);
      clearTimeout(timer);
      expect(fannedOut).toBe(1);
    } finally {
      pauseBeforeHealthUpdate = undefined;
      release();
    }
    expect([...(await recording)]).toEqual([claimed.id]);
    const [webhook] = await dataSource.query(`SELECT status, failure_count FROM webhooks.webhooks WHERE id = 'wh_1'`);
    expect(webhook).toEqual({ status: 'failing', failure_count: 1 });
  });
});

function failedAttempt(delivery: ClaimedDelivery) {
  return {
    owner: 'worker-1',
    delivery,
    startedAt: new Date(),
    responseCode: 500,
    durationMs: 12,
    error: 'HTTP 500',
    success: false,
    gone: false,
    affectsWebhookHealth: true,
    nextAttemptAt: new Date(Date.now() + 60_000),
  };
}
