import { AppProcess, eventually, freeDnsPort, PROCESS_READY_TIMEOUT_MS, RawSmtp, startRawSmtp } from '@mailroom/testing';
import { DeliveryHarness, eventsOf, routeMailTo, startDeliveryHarness, startEmailsProcess, untilEmailsProcessReady, verifiedDomain } from './support/delivery-harness';

/**
 * Under the 15 s that fixed drain and recording waits once took up, so the test also shows they scale with it:
 * the drain (4 s, 40 %), the recording after the cut-off (2 s, 20 %), and the rest for closing the app. The
 * default 25 s would spend 10 s of the test in the drain alone.
 */
const SHUTDOWN_TIMEOUT_MS = 10000;

/**
 * SIGTERM while an MX host holds the reply to a message it has received in
 * full, and neither its silence (SMTP_TIMEOUT_MS) nor the exchange's deadline
 * will end it before the shutdown must. The process must still exit 0 in its
 * bound and hand the email back: the attempt recorded as a timeout that may
 * have delivered, the lease released, rather than the email held until its
 * lease runs out.
 */
describe('SIGTERM to the emails process while an MX host stalls', () => {
  let harness: DeliveryHarness;
  let stalling: RawSmtp;
  let emails: AppProcess | undefined;

  beforeAll(async () => {
    harness = await startDeliveryHarness({}, ['keys', 'domains', 'webhook-dispatcher', 'gateway']);
    routeMailTo(harness.dns, 'example.test');
    const port = harness.smtp.port;
    await harness.smtp.stop();
    // Takes the message, then never answers it.
    stalling = await startRawSmtp(port, (step) => step === 'message');
    const opsPort = await freeDnsPort();
    emails = startEmailsProcess(harness, opsPort, {
      SMTP_TIMEOUT_MS: '120000',
      SMTP_MESSAGE_TIMEOUT_MS: '120000',
      DELIVERY_LEASE_MS: '120000',
      DELIVERY_RETRY_SCHEDULE: '1h',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    });
    await untilEmailsProcessReady(opsPort);
    await eventually(async () => (await harness.stack.api.get('/health', { key: null })).status === 200, PROCESS_READY_TIMEOUT_MS);
    await verifiedDomain(harness, 'acme.test');
  }, 240000);
  afterAll(async () => {
    emails?.child.kill('SIGKILL');
    await stalling?.close();
    await harness?.stop();
  });

  it('exits 0 within its bound and records the attempt, releasing the lease', async () => {
    const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'reader@example.test', subject: 'Held', text: 'x' });
    expect(sent.status).toBe(202);
    await eventually(() => stalling.messages.length === 1, 30000);

    const signalledAt = Date.now();
    emails!.child.kill('SIGTERM');
    const exit = await emails!.exited;
    expect({ exit, stderr: emails!.stderr() }).toEqual({ exit: { code: 0, signal: null }, stderr: expect.any(String) });
    // Exit 0 already means before the deadline (past it the app exits 1); this bounds the signal's and the exit's
    // delivery too, with room for a loaded machine's event loop starting the app's deadline late.
    expect(Date.now() - signalledAt).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 2000);

    const { rows: email } = await harness.db.query('SELECT status, attempts, lease_owner FROM emails.emails WHERE id = $1', [sent.body.id]);
    expect(email[0]).toEqual({ status: 'queued', attempts: 1, lease_owner: null });
    const { rows: recipients } = await harness.db.query('SELECT status, attempts, smtp_code, smtp_reply FROM emails.recipients WHERE email_id = $1', [sent.body.id]);
    expect(recipients[0]).toMatchObject({ status: 'deferred', attempts: 1, smtp_code: null, smtp_reply: expect.stringMatching(/shut down during the exchange.*it may have been delivered/) });
    expect((await eventsOf(harness.db, sent.body.id)).map((event) => event.type)).toEqual(['email.queued', 'email.delivery_delayed']);
  }, 120000);
});
