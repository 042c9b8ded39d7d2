import { startTestSmtp, TestSmtp } from '@mailroom/testing';
import { DeliveryHarness, emailReaching, eventsOf, listedUnderStatus, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

/** Relay mode: every message goes to SMTP_RELAY_URL with AUTH over STARTTLS; the relay's 2xx means 'sent'. */
describe('delivery in relay mode', () => {
  let relay: TestSmtp;
  let harness: DeliveryHarness;

  beforeAll(async () => {
    relay = await startTestSmtp({ auth: { user: 'mailroom', pass: 's3cret' } });
    harness = await startDeliveryHarness({
      DELIVERY_MODE: 'relay',
      SMTP_RELAY_URL: `smtp://mailroom:s3cret@127.0.0.1:${relay.port}`,
      SMTP_RELAY_REQUIRE_TLS: 'true',
      SMTP_RELAY_TLS_VERIFY: 'false',
    });
    await verifiedDomain(harness, 'acme.test');
  });
  afterAll(async () => {
    await harness?.stop();
    await relay?.close();
  });
  beforeEach(() => relay.clear());

  // First in the file: the relay's pool has no authenticated session yet, so this mail's session must log in.
  it('retries, and neither bounces nor suppresses, when the relay refuses its credentials', async () => {
    relay.failAuth(535, '5.7.8 Authentication credentials invalid');
    const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'reader@one.test', subject: 'Wrong password', text: 'x' });
    const email = await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['sent', 'bounced', 'failed']);
    expect(email.status).toBe('sent');
    expect(email.recipients[0]).toMatchObject({ status: 'sent', attempts: 2 });
    // The log names the relay as the server of both answers, the refused login's and the accepted message's.
    expect(email.recipients[0].attemptLog).toEqual([
      expect.objectContaining({ attempt: 1, status: 'deferred', smtpCode: 535, host: '127.0.0.1' }),
      expect.objectContaining({ attempt: 2, status: 'sent', smtpCode: 250, host: '127.0.0.1' }),
    ]);
    const events = await eventsOf(harness.db, sent.body.id);
    expect(events.map((event) => event.type)).toEqual(['email.queued', 'email.delivery_delayed', 'email.sent']);
    expect(events[2].data).toMatchObject({ smtp: { code: 250, host: '127.0.0.1' } });
    const { rows } = await harness.db.query(`SELECT address FROM emails.suppressions WHERE address = 'reader@one.test'`);
    expect(rows).toEqual([]);
  });

  it('hands every recipient to the relay in one authenticated TLS session and marks them sent', async () => {
    const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: ['a@one.test', 'b@two.test'], subject: 'Via relay', text: 'x' });
    expect(sent.status).toBe(202);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['sent']);
    expect(email.recipients.map((recipient: any) => recipient.status)).toEqual(['sent', 'sent']);
    expect(email.deliveredAt).toBeNull();
    expect(relay.messages).toHaveLength(1);
    expect(relay.messages[0]).toMatchObject({ user: 'mailroom', secure: true, mailFrom: 'bounces@acme.test' });
    expect(relay.messages[0].rcptTo.sort()).toEqual(['a@one.test', 'b@two.test']);
    expect((await eventsOf(harness.db, sent.body.id)).filter((event) => event.type === 'email.sent')).toHaveLength(2);
    expect(harness.smtp.connectionCount).toBe(0);
    // The interface's status filter: a relay's 2xx lists the email as sent, and only there.
    const listed = await listedUnderStatus(harness.stack, harness.stack.rootKey, 'sent');
    expect(listed).toEqual({ ids: expect.arrayContaining([sent.body.id]), statuses: ['sent'], totalCount: listed.size, size: listed.size });
    expect((await listedUnderStatus(harness.stack, harness.stack.rootKey, 'delivered')).ids).not.toContain(sent.body.id);
  });
});
