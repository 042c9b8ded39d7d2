import { RawSmtp, startRawSmtp } from '@mailroom/testing';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

/**
 * A receiving server's reply is kept (smtp_reply, the event's smtp.reply, a
 * bounce's suppression details). A NUL character in it made Postgres refuse
 * the whole record (22P05), which is no database outage: the attempt was
 * never recorded, the lease ran out, and the message went out again, for ever.
 */
describe('an SMTP reply holding a NUL character', () => {
  let harness: DeliveryHarness;
  let raw: RawSmtp | undefined;

  beforeAll(async () => {
    harness = await startDeliveryHarness({ DELIVERY_LEASE_MS: '2000' });
    routeMailTo(harness.dns, 'example.test');
    await verifiedDomain(harness, 'acme.test');
    // An MX on the test SMTP server's port whose reply to the message carries a NUL byte (smtp-server would not send one).
    const port = harness.smtp.port;
    await harness.smtp.stop();
    raw = await startRawSmtp(port, (step, socket) => step === 'message' && (socket.write('250 2.0.0 queued as \u0000ABC\r\n'), true));
  }, 120000);
  afterAll(async () => {
    await raw?.close();
    await harness?.stop();
  });

  it('records the outcome once and does not send the message again and again', async () => {
    const { stack, db } = harness;
    const sent = await stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'nul@example.test', subject: 'NUL', text: 'x' });
    expect(sent.status).toBe(202);
    const email = await emailReaching(stack, stack.rootKey, sent.body.id, ['delivered'], 20000);
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', smtpCode: 250, smtpReply: '250 2.0.0 queued as \uFFFDABC' });
    // Recorded once, so nothing claims it again.
    const { rows } = await db.query('SELECT attempts, lease_owner FROM emails.emails WHERE id = $1', [sent.body.id]);
    expect(rows[0]).toEqual({ attempts: 1, lease_owner: null });
    expect(raw!.messages).toHaveLength(1);
  }, 60000);
});
