import { AppProcess, eventually, freeDnsPort, PROCESS_READY_TIMEOUT_MS } from '@mailroom/testing';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, startEmailsProcess, verifiedDomain } from './support/delivery-harness';

const LEASE_MS = 1500;

/**
 * An SMTP session that outlasts the delivery lease (SMTP_TIMEOUT_MS is longer
 * than DELIVERY_LEASE_MS, as a slow receiver may hold its DATA reply for
 * minutes). With a second worker process polling beside it, the lease must be
 * renewed while the session runs, or the other worker takes the email over and
 * sends a second copy while the first is still waiting for its reply.
 */
describe('a delivery whose SMTP session outlasts its lease, with a second worker polling', () => {
  let harness: DeliveryHarness;
  let worker: AppProcess | undefined;

  beforeAll(async () => {
    harness = await startDeliveryHarness({ DELIVERY_LEASE_MS: String(LEASE_MS), SMTP_TIMEOUT_MS: '60000' });
    routeMailTo(harness.dns, 'example.test');
    await verifiedDomain(harness, 'acme.test');
    const opsPort = await freeDnsPort();
    worker = startEmailsProcess(harness, opsPort, { EMAILS_ROLE: 'worker', SMTP_TIMEOUT_MS: '60000', DELIVERY_LEASE_MS: String(LEASE_MS) });
    const ready = async () => (await fetch(`http://127.0.0.1:${opsPort}/health/ready`).then((response) => response.status, () => 0)) === 200;
    await eventually(ready, PROCESS_READY_TIMEOUT_MS).catch((error: Error) => {
      throw new Error(`${error.message}; the worker wrote: ${worker!.stderr()}`);
    });
  }, 240000);

  afterAll(async () => {
    worker?.child.kill('SIGKILL');
    await harness?.stop();
  });

  it('keeps its lease while it waits for the reply, so the message goes out once', async () => {
    const { smtp, db, stack } = harness;
    const held = smtp.holdNextData();
    const sent = await stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'slow@example.test', subject: 'Slow', text: 'x' });
    expect(sent.status).toBe(202);
    await held.arrived;
    const lease = async () => (await db.query(`SELECT lease_owner, lease_expires_at, now() AS now FROM emails.emails WHERE id = $1`, [sent.body.id])).rows[0];
    const first = await lease();
    expect(first.lease_owner).toEqual(expect.any(String));

    // Wait, on the database's clock, until the lease the claim took would have run out twice over, watching the owner.
    const owners = new Set<string>();
    const deadline = new Date(first.lease_expires_at.getTime() + 2 * LEASE_MS);
    const last = await eventually(async () => {
      const row = await lease();
      owners.add(row.lease_owner);
      return row.now > deadline ? row : undefined;
    }, 20000, 100);
    expect([...owners]).toEqual([first.lease_owner]);
    expect(last.lease_expires_at.getTime()).toBeGreaterThan(first.lease_expires_at.getTime());
    // No worker sent it again: a second DATA would have been answered at once and kept.
    expect(smtp.messagesFor('slow@example.test')).toHaveLength(0);

    held.release();
    const email = await emailReaching(stack, stack.rootKey, sent.body.id, ['delivered']);
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(smtp.messagesFor('slow@example.test')).toHaveLength(1);
  }, 60000);
});
