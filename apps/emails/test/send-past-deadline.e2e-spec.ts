import { Client } from 'pg';
import { APP_POOL_SIZE } from '@mailroom/database';
import { ApiClient, ApiResponse, eventually, scrapeMetrics, startStack, Stack } from '@mailroom/testing';
import { emailBody, queryDatabase } from './emails-api-fixtures';

/** Short, so the gateway gives up on a stalled send within the test. */
const RPC_TIMEOUT_MS = 1000;
/** Long: a request waits for a pooled connection until the database is back, instead of failing as unavailable. */
const DATABASE_ACQUIRE_TIMEOUT_MS = 60_000;
/** More writes than the emails service has pooled connections, so that the sends after them wait for one. */
const STALLED_BATCHES = APP_POOL_SIZE + 2;

const DROPPED_METRIC = 'mailroom_emails_dropped_past_deadline_total';

/**
 * The gateway answers 503 after RPC_TIMEOUT_MS; a send still waiting in the
 * emails service for the database then was stored once the database was
 * back, and a client retrying without an Idempotency-Key (most do after a
 * 503) got two emails sent. A send whose write had not begun when the
 * gateway stopped waiting is dropped; one whose write had begun is committed,
 * as before.
 */
describe('a send the gateway gave up on while the database was stalled', () => {
  let stack: Stack;
  let test: ApiClient;

  beforeAll(async () => {
    stack = await startStack({
      apps: ['keys', 'emails', 'gateway'],
      env: { RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS), DATABASE_ACQUIRE_TIMEOUT_MS: String(DATABASE_ACQUIRE_TIMEOUT_MS) },
    });
    test = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
  });
  afterAll(() => stack?.stop());

  const dropped = async () => (await scrapeMetrics(stack.opsUrl('emails'))).find(DROPPED_METRIC).reduce((sum, sample) => sum + sample.value, 0);
  const storedWith = async (subjectPrefix: string) =>
    (await queryDatabase<{ n: number }>(stack.databaseUrl, 'SELECT count(*)::int AS n FROM emails.emails WHERE subject LIKE $1', [`${subjectPrefix}%`]))[0].n;
  /** The emails service's backends waiting on a lock `holder` holds, and how many of them are send inserts. */
  const blockedBy = async (holder: Client) =>
    (
      await queryDatabase<{ all: number; inserts: number }>(
        stack.databaseUrl,
        `SELECT count(*)::int AS all, (count(*) FILTER (WHERE query LIKE '%INSERT INTO "emails"."emails"%'))::int AS inserts
           FROM pg_stat_activity WHERE application_name = 'mailroom-emails' AND $1 = ANY(pg_blocking_pids(pid))`,
        [(await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid],
      )
    )[0];

  it('stores none of the sends that were still waiting for a connection when the gateway answered 503, single or batch, with or without a key', async () => {
    const droppedBefore = await dropped();
    const holder = new Client({ connectionString: stack.databaseUrl });
    await holder.connect();
    let began: number;
    let answers: ApiResponse[];
    try {
      // Every send inserts its outbox event in the statement that stores it: held, the statement waits, its connection with it.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE emails.outbox IN EXCLUSIVE MODE');
      const stalled = Array.from({ length: STALLED_BATCHES }, (_, index) => test.post('/v1/emails/batch', [emailBody({ subject: `began ${index}` })]));
      // Every pooled connection is stopped by the lock: the sends below wait for one, their write not begun.
      await eventually(async () => (await blockedBy(holder)).all >= APP_POOL_SIZE, 15_000);
      const waiting = [
        test.post('/v1/emails', emailBody({ subject: 'waiting single' })),
        test.post('/v1/emails/batch', [emailBody({ subject: 'waiting batch' })]),
        test.post('/v1/emails', emailBody({ subject: 'waiting keyed single' }), { headers: { 'idempotency-key': 'waiting-single' } }),
        test.post('/v1/emails/batch', [emailBody({ subject: 'waiting keyed batch' })], { headers: { 'idempotency-key': 'waiting-batch' } }),
      ];
      answers = await Promise.all([...stalled, ...waiting]);
      // The sends whose statement had begun (each holding a connection): those are committed once the lock is gone.
      began = (await blockedBy(holder)).inserts;
      // The service counts each budget from when it read the request (RpcDeadline), later than the gateway sent it
      // by the time its event loop took to get to it: under load, long enough for a waiting send to be handed a
      // freed connection still inside its deadline had the lock gone at once, which CI saw. The lock is held for one
      // more budget, so that a request read up to RPC_TIMEOUT_MS late has its deadline passed too when it gets one.
      await new Promise((resolve) => setTimeout(resolve, RPC_TIMEOUT_MS));
      expect((await blockedBy(holder)).inserts).toBe(began);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect(answers.map((answer) => [answer.status, answer.body.error?.code])).toEqual(answers.map(() => [503, 'service_unavailable']));
    expect(began).toBeGreaterThan(0);
    expect(began).toBeLessThan(STALLED_BATCHES);

    // Settled once each request is either stored or dropped.
    await eventually(async () => (await storedWith('began')) + (await storedWith('waiting')) + (await dropped()) - droppedBefore === answers.length, 30_000);
    expect({ began: await storedWith('began'), waiting: await storedWith('waiting') }).toEqual({ began, waiting: 0 });
    expect((await dropped()) - droppedBefore).toBe(answers.length - began);

    // Nothing of a dropped keyed send was kept: the same body with the same key is a first send, and is stored once.
    const retried = await test.post('/v1/emails', emailBody({ subject: 'waiting keyed single' }), { headers: { 'idempotency-key': 'waiting-single' } });
    expect(retried.status).toBe(202);
    expect(await storedWith('waiting keyed single')).toBe(1);
  });
});
