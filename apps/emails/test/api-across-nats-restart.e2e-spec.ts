import { ApiClient, eventually, startStack, Stack } from '@mailroom/testing';
import { queryDatabase } from './emails-api-fixtures';
import { isCleanUnavailable, SendOutcome, SteadySender } from './support/steady-sender';

/** Short, so a send caught in flight by the restart gets its 503 soon; the healthy stack answers in milliseconds. */
const RPC_TIMEOUT_MS = 2000;
/** What a refusal may take beyond its RPC waits on a loaded 2-core machine. */
const SLACK_MS = 1500;
/**
 * The longest a send may wait on services: a replica drops its key cache at a NATS reconnect, so the first send
 * after one waits for the keys service, then for the emails service, each up to RPC_TIMEOUT_MS (README, Caching).
 */
const LONGEST_WAIT_MS = 2 * RPC_TIMEOUT_MS;
const RESTARTS = 2;

/**
 * The NATS server restarts (keeping its store, as a rolling upgrade of the
 * server does) twice while sends stream in through the API: every answer is a
 * 202 or a clean 503 service_unavailable in time, a send refused while NATS is
 * down is answered at once rather than after the timeout, every app takes up
 * again without a restart of its own, and a send retried with its
 * Idempotency-Key after the 503 is stored exactly once.
 */
describe('the API across NATS server restarts', () => {
  let stack: Stack;
  let test: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ env: { RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) } });
    test = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
  });
  afterAll(() => stack?.stop());

  const send = (subject: string) => test.post('/v1/emails', { from: 'hi@acme.test', to: 'ann@example.com', subject, text: 'x' });

  /** Stops NATS, checks a send meanwhile is refused at once, starts it again and waits for a send to go through. */
  async function restartNats(round: number): Promise<void> {
    await stack.nats.stop();
    const started = Date.now();
    const refused = await send(`while down ${round}`);
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 503, body: { error: { code: 'service_unavailable', message: expect.any(String) } } });
    expect(Date.now() - started).toBeLessThan(RPC_TIMEOUT_MS);
    await stack.nats.restart();
    await eventually(async () => (await send(`after ${round}`)).status === 202, 15000);
  }

  it('answers every send 202 or 503 in time, and stores each keyed send once', async () => {
    const timed = new TimedApi(test);
    const sender = new SteadySender(timed.client, { from: 'hi@acme.test', recipientPrefix: 'restart', domain: 'example.com', intervalMs: 20, keyedRetryMs: 20000, retryIntervalMs: 100 });
    const chaos = async () => {
      await eventually(async () => sender.acceptedCount >= 10);
      for (let round = 1; round <= RESTARTS; round++) {
        const acceptedBefore = sender.acceptedCount;
        await restartNats(round);
        await eventually(async () => sender.acceptedCount >= acceptedBefore + 10, 15000);
      }
      sender.stop();
    };
    await Promise.all([sender.run(), chaos()]);

    const refusals = sender.outcomes.flatMap((outcome) => outcome.refusals);
    expect({ unclean: refusals.filter((refusal) => !isCleanUnavailable(refusal)), keyedLost: sender.outcomes.filter((o) => o.keyed && !o.id).length }).toEqual({ unclean: [], keyedLost: 0 });
    expect(timed.slowest).toBeLessThan(LONGEST_WAIT_MS + SLACK_MS);

    const keyed = sender.outcomes.filter((outcome): outcome is SendOutcome & { id: string } => outcome.keyed && outcome.id !== undefined);
    const stored = await queryDatabase<{ recipient: string; ids: string[] }>(
      stack.databaseUrl,
      `SELECT r.address AS recipient, array_agg(e.id) AS ids FROM emails.emails e JOIN emails.recipients r ON r.email_id = e.id
        WHERE r.address = ANY($1::text[]) GROUP BY r.address`,
      [keyed.map((outcome) => outcome.recipient)],
    );
    const storedIds = new Map(stored.map((row) => [row.recipient, row.ids]));
    expect(keyed.filter((outcome) => JSON.stringify(storedIds.get(outcome.recipient)) !== JSON.stringify([outcome.id]))).toEqual([]);
  });
});

/** The API client the sender uses, recording how long the slowest answer took. */
class TimedApi {
  slowest = 0;
  readonly client: ApiClient;

  constructor(api: ApiClient) {
    const record = (started: number) => (this.slowest = Math.max(this.slowest, Date.now() - started));
    this.client = Object.assign(Object.create(api) as ApiClient, {
      post: async (...args: Parameters<ApiClient['post']>) => {
        const started = Date.now();
        try {
          return await api.post(...args);
        } finally {
          record(started);
        }
      },
    });
  }
}
