import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { AppProcess, eventually, freeDnsPort, PROCESS_READY_TIMEOUT_MS, scrapeMetrics, Stack, startAppProcess, startStack } from '@mailroom/testing';
import { emailReaching } from './support/delivery-harness';

const POLL_MS = 50;

/** The nice value of a running process: field 19 of /proc/<pid>/stat, counted after the command name's closing parenthesis. */
function niceOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/**
 * EMAILS_ROLE splits the emails service: an api process (here in the test's
 * process, behind the real gateway) answers requests and does nothing in the
 * background; a worker process (its own OS process, at PROCESS_NICE=10, as
 * it would run beside the api on a shared host) delivers and publishes what
 * the api accepted, and answers no request.
 */
describe('the emails service split into an api process and a worker process', () => {
  let stack: Stack;
  let db: Client;
  let testKey: string;
  let worker: AppProcess | undefined;
  let workerOpsPort: number;
  let id: string;

  const unpublishedEvents = async () => Number((await db.query('SELECT count(*) FROM emails.outbox WHERE published_at IS NULL')).rows[0].count);
  const workerReady = async () => (await fetch(`http://127.0.0.1:${workerOpsPort}/health/ready`).then((response) => response.status, () => 0)) === 200;

  beforeAll(async () => {
    stack = await startStack({
      apps: ['keys', 'domains', 'emails', 'gateway'],
      env: { EMAILS_ROLE: 'api', DELIVERY_POLL_MS: String(POLL_MS), OUTBOX_POLL_MS: String(POLL_MS), RPC_TIMEOUT_MS: '1000' },
    });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    testKey = (await stack.issueKey({ mode: 'test' })).key;
    workerOpsPort = await freeDnsPort();
  }, 240000);

  afterAll(async () => {
    worker?.child.kill('SIGKILL');
    await db?.end();
    await stack?.stop();
  });

  it('an api process accepts and answers, but neither delivers nor publishes', async () => {
    const response = await stack.api.post('/v1/emails', { from: 'App <app@unverified.example>', to: 'delivered@example.com', subject: 'Split', text: 'hi' }, { key: testKey });
    expect(response.status).toBe(202);
    id = response.body.id;
    // An absence can only be watched for: twenty of the delivery worker's and the relay's poll periods.
    const watchUntil = Date.now() + 20 * POLL_MS;
    while (Date.now() < watchUntil) {
      expect((await stack.api.get(`/v1/emails/${id}`, { key: testKey })).body.status).toBe('queued');
    }
    expect(await unpublishedEvents()).toBeGreaterThan(0);
    // The api process still reports the queue, so a missing worker shows as mail waiting longer and longer.
    const scrape = await eventually(async () => {
      const metrics = await scrapeMetrics(stack.opsUrl('emails'));
      return metrics.value('mailroom_email_oldest_due_age_seconds') > 0.5 ? metrics : undefined;
    }, 5000);
    expect(scrape.value('mailroom_email_queue_depth', { state: 'due' })).toBe(1);
  });

  it('a worker process at PROCESS_NICE=10 delivers what the api accepted and publishes its events', async () => {
    worker = startAppProcess('emails', {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: stack.databaseUrl,
      NATS_URL: stack.nats.url,
      HEALTH_HOST: '127.0.0.1',
      HEALTH_PORT: String(workerOpsPort),
      EMAILS_ROLE: 'worker',
      PROCESS_NICE: '10',
      DELIVERY_POLL_MS: String(POLL_MS),
      OUTBOX_POLL_MS: String(POLL_MS),
    });
    // At PROCESS_NICE=10 the worker gets the least of a busy CPU: on a loaded machine it boots slowest of all.
    await eventually(workerReady, PROCESS_READY_TIMEOUT_MS).catch((error: Error) => {
      throw new Error(`${error.message}; the worker wrote: ${worker!.stderr()}`);
    });
    expect(niceOf(worker.child.pid!)).toBe(10);

    const email = await emailReaching(stack, testKey, id, ['delivered']);
    expect(email.recipients[0]).toMatchObject({ address: 'delivered@example.com', status: 'delivered', smtpCode: 250 });
    await eventually(async () => (await unpublishedEvents()) === 0, 10000);
    await eventually(async () => (await scrapeMetrics(stack.opsUrl('emails'))).value('mailroom_email_queue_depth', { state: 'due' }) === 0, 5000);
  }, PROCESS_READY_TIMEOUT_MS + 60_000);

  it('a worker answers no request: with the api process stopped, the API answers 503 while the worker runs on', async () => {
    await stack.stopApp('emails');
    const response = await stack.api.get(`/v1/emails/${id}`, { key: testKey });
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('service_unavailable');
    expect(await workerReady()).toBe(true);
  });

  it('a worker shuts down cleanly on SIGTERM', async () => {
    worker!.child.kill('SIGTERM');
    expect(await worker!.exited).toEqual({ code: 0, signal: null });
  });
});
