import { Client } from 'pg';
import { ApiClient, eventually, startStack, Stack } from '@mailroom/testing';

/** Long, so an answer that waited for it cannot pass for one given when the connection dropped. */
const RPC_TIMEOUT_MS = 30_000;
/** What the answer may take after NATS stops, on a loaded 2-core machine: nats.js notices a closed socket at once. */
const PROMPT_MS = 10_000;

/**
 * Core NATS keeps no message for a subscriber that is away, so the reply to a
 * request in flight when the connection drops is lost. The gateway answered
 * such a request 503 only at RPC_TIMEOUT_MS; it answers as soon as it sees the
 * connection go.
 */
describe('a request in flight when the NATS connection drops', () => {
  let stack: Stack;
  let test: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'domains', 'emails', 'gateway'], env: { RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) } });
    test = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
    expect((await test.get('/v1/emails')).status).toBe(200);
  });
  afterAll(() => stack?.stop());

  it('is answered 503 soon after, not at RPC_TIMEOUT_MS, and the API answers again once NATS is back', async () => {
    // The list waits for this lock inside the emails service: a request that is in flight, its reply not yet sent.
    const locker = new Client({ connectionString: stack.databaseUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE emails.emails IN ACCESS EXCLUSIVE MODE');
    try {
      const listing = test.get('/v1/emails');
      // The request has reached the service once a backend waits for the lock.
      await eventually(async () => (await locker.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`)).rows[0].n > 0);

      const stoppedAt = Date.now();
      await stack.nats.stop();
      const answer = await listing;
      expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status: 503, code: 'service_unavailable' });
      expect(answer.body.error.message).toMatch(/connection to the message bus \(NATS\) dropped/);
      expect(Date.now() - stoppedAt).toBeLessThan(PROMPT_MS);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
      // Also when an expectation failed: the stack cannot stop cleanly without its NATS server.
      await stack.nats.restart();
    }
    await eventually(async () => (await test.get('/v1/emails')).status === 200, 30_000);
  });
});
