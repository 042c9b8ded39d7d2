import { AppProcess, eventually, PROCESS_READY_TIMEOUT_MS } from '@mailroom/testing';
import { DeliveryHarness, startDeliveryHarnessBesideEmailsProcess, startEmailsProcess } from './support/delivery-harness';

const SHUTDOWN_BOUND_MS = 15000;
const SENDERS = 4;

/**
 * The emails app runs as its own process and receives SIGTERM while sends
 * stream in through the gateway and an SMTP delivery is in flight. It must
 * exit 0 in bounded time, and once restarted, every email the API accepted
 * (202) must reach the SMTP server exactly once: nothing lost, nothing twice.
 */
describe('SIGTERM to the emails process during a stream of sends', () => {
  let harness: DeliveryHarness;
  let emails: AppProcess | undefined;
  let opsPort: number;

  const startEmails = () => {
    emails = startEmailsProcess(harness, opsPort, {
      DELIVERY_RETRY_SCHEDULE: '500ms,500ms,500ms',
      // Longer than the test: a delivery cut off by the shutdown would only come back as a duplicate after this.
      DELIVERY_LEASE_MS: '120000',
    });
  };
  const ready = async () => (await fetch(`http://127.0.0.1:${opsPort}/health/ready`).then((response) => response.status, () => 0)) === 200;
  /** Waits for the emails process to be ready; if it is not, says what it wrote and whether it exited. */
  const becomesReady = async () => {
    const running = emails!;
    let exit: unknown = 'still running';
    void running.exited.then((status) => (exit = status));
    await eventually(ready, PROCESS_READY_TIMEOUT_MS).catch((error: Error) => {
      throw new Error(`${error.message}; the emails process (${JSON.stringify(exit)}) wrote: ${running.stderr()}`);
    });
  };

  beforeAll(async () => {
    await startDeliveryHarnessBesideEmailsProcess(async (started, port) => {
      harness = started;
      opsPort = port;
      startEmails();
      await becomesReady();
    });
  }, 240000);

  afterAll(async () => {
    emails?.child.kill('SIGKILL');
    await harness?.stop();
  });

  it('exits 0 within the bound, finishes the delivery in flight, and after a restart delivers every accepted email exactly once', async () => {
    const api = harness.stack.api;
    const accepted: string[] = [];
    const refusals = new Map<string, number>();
    let streaming = true;
    let sequence = 0;
    const sender = async () => {
      while (streaming) {
        const n = sequence++;
        const response = await api.post('/v1/emails', { from: 'hi@acme.test', to: `load${n}@example.test`, subject: `Load ${n}`, text: 'x' });
        if (response.status === 202) accepted.push(response.body.id);
        else refusals.set(`${response.status} ${response.body?.error?.code}`, (refusals.get(`${response.status} ${response.body?.error?.code}`) ?? 0) + 1);
        // Paced, so the stream stays steady rather than spinning on 503s while the service is down.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const senders = Promise.all(Array.from({ length: SENDERS }, sender));

    await eventually(() => accepted.length >= 20 && harness.smtp.messages.length >= 5, 20000);
    const held = harness.smtp.holdNextData();
    const inFlight = await held.arrived;

    const acceptedBefore = accepted.length;
    const signalledAt = Date.now();
    emails!.child.kill('SIGTERM');
    // The ops port closes first: once it refuses, the shutdown is under way while the DATA reply is still held.
    await eventually(async () => !(await ready()), SHUTDOWN_BOUND_MS);
    held.release();
    const exit = await emails!.exited;
    const shutdownMs = Date.now() - signalledAt;
    expect({ exit, stderr: emails!.stderr() }).toEqual({ exit: { code: 0, signal: null }, stderr: expect.any(String) });
    expect(shutdownMs).toBeLessThan(SHUTDOWN_BOUND_MS);

    // Sends go on while no emails process runs: they are refused (503), never accepted and dropped.
    const acceptedWhileDown = accepted.length;
    await eventually(() => [...refusals.values()].reduce((a, b) => a + b, 0) >= 5, 10000);
    startEmails();
    await becomesReady();
    await eventually(() => accepted.length >= acceptedWhileDown + 20, 20000);
    streaming = false;
    await senders;

    expect(acceptedBefore).toBeGreaterThanOrEqual(20);
    expect([...refusals.keys()].every((key) => key === '503 service_unavailable')).toBe(true);

    const messageIdOf = (raw: Buffer) => /^Message-ID: <([^@>]+)@acme\.test>\r$/m.exec(raw.toString())?.[1];
    const expected = new Set(accepted);
    const missing = () => {
      const received = new Set(harness.smtp.messages.map((message) => messageIdOf(message.raw)));
      return accepted.filter((id) => !received.has(id));
    };
    await eventually(() => missing().length === 0, 30000).catch(async (error: Error) => {
      const { rows } = await harness.db.query(`SELECT id, status, lease_owner, attempts FROM emails.emails WHERE id = ANY($1::text[])`, [missing()]);
      throw new Error(`${error.message}: not received ${JSON.stringify(rows)}`);
    });
    const counts = new Map<string, number>();
    for (const message of harness.smtp.messages) {
      const id = messageIdOf(message.raw) ?? 'no Message-ID';
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const duplicated = [...counts].filter(([, count]) => count > 1);
    const unexpected = [...counts.keys()].filter((id) => !expected.has(id));
    expect({ duplicated, unexpected }).toEqual({ duplicated: [], unexpected: [] });
    expect(counts.size).toBe(accepted.length);
    // The message whose delivery was in flight at SIGTERM went out once, recorded by the process that sent it.
    expect(counts.get(messageIdOf(inFlight.raw)!)).toBe(1);
  }, 240000);
});
