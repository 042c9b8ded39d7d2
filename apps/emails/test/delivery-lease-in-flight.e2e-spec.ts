import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

/**
 * A lease that runs out while its process is still delivering (renewals fail
 * through a database outage longer than the lease). The process must not
 * claim the email again beside the attempt still in flight: both attempts
 * would record under the same owner, and the older outcome could overwrite
 * a recipient the newer one had delivered (found by a review).
 */
describe('an email whose lease ran out while its attempt is still in flight', () => {
  let harness: DeliveryHarness;

  beforeAll(async () => {
    harness = await startDeliveryHarness({ DELIVERY_LEASE_MS: '30000', SMTP_TIMEOUT_MS: '60000', DELIVERY_RETRY_SCHEDULE: '1s,1s,1s' });
    routeMailTo(harness.dns, 'example.test');
    await verifiedDomain(harness, 'acme.test');
  }, 120000);
  afterAll(() => harness?.stop());

  it('is not claimed again by the same process, and its attempt is recorded once it ends', async () => {
    const { smtp, db, stack } = harness;
    const held = smtp.holdNextData();
    const sent = await stack.api.post('/v1/emails', { from: 'hi@acme.test', to: ['r1@example.test', 'r2@example.test'], subject: 'Fence', text: 'x' });
    expect(sent.status).toBe(202);
    await held.arrived;
    await db.query(`UPDATE emails.emails SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [sent.body.id]);

    // Another email delivered after the lease ran out proves the worker has polled since, and passed the first one by.
    const other = await stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'other@example.test', subject: 'Other', text: 'x' });
    await emailReaching(stack, stack.rootKey, other.body.id, ['delivered'], 15000);
    expect(smtp.messagesFor('r1@example.test')).toHaveLength(0);
    const { rows } = await db.query(`SELECT status, attempts FROM emails.recipients WHERE email_id = $1 ORDER BY address`, [sent.body.id]);
    expect(rows).toEqual([
      { status: 'queued', attempts: 0 },
      { status: 'queued', attempts: 0 },
    ]);

    held.release();
    const email = await emailReaching(stack, stack.rootKey, sent.body.id, ['delivered'], 15000);
    expect(email.recipients.map((recipient: { status: string; attempts: number }) => [recipient.status, recipient.attempts])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
    ]);
    expect(smtp.messagesFor('r1@example.test')).toHaveLength(1);
  }, 60000);
});
