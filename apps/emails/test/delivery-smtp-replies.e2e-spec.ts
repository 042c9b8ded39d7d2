import { startTestSmtp } from '@mailroom/testing';
import { DeliveryHarness, emailReaching, eventsOf, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

/**
 * What each recipient ends up as when one SMTP transaction answers them differently:
 * per-recipient RCPT replies, a DATA reply that comes after them, and which permanent
 * refusals say the address is bad (suppressed) rather than the message (bounced only).
 */
describe('delivery: SMTP replies per recipient', () => {
  let harness: DeliveryHarness;

  beforeAll(async () => {
    harness = await startDeliveryHarness();
    routeMailTo(harness.dns, 'example.test');
    await verifiedDomain(harness, 'acme.test');
  });
  afterAll(() => harness?.stop());
  beforeEach(() => harness.smtp.clear());

  const send = async (to: string | string[]) => {
    const response = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to, subject: 'Hello', text: 'Hi there' });
    expect(response.status).toBe(202);
    return response.body.id as string;
  };
  const recipient = (email: any, address: string) => email.recipients.find((one: any) => one.address === address);
  const suppressionOf = async (address: string) =>
    (await harness.db.query(`SELECT reason, details FROM emails.suppressions WHERE mode = 'live' AND address = $1`, [address])).rows;
  const bounceEventOf = async (id: string, address: string) =>
    (await eventsOf(harness.db, id)).find((event) => event.type === 'email.bounced' && event.data.recipient === address)?.data;

  it("keeps each recipient's own RCPT reply when DATA then fails temporarily", async () => {
    harness.smtp.rejectRecipient('gone1@example.test', 550, '5.1.1 No such user');
    harness.smtp.rejectRecipient('later1@example.test', 452, '4.5.3 Too many recipients');
    harness.smtp.failNext(451, '4.3.0 Try again later');
    // Written with capitals, which RCPT TO keeps: each reply still finds its recipient.
    const id = await send(['fine1@example.test', 'Gone1@example.test', 'Later1@example.test']);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered', 'bounced', 'failed']);
    // The 550 was this address's answer: a bounce on the first attempt, not a retry under the DATA reply.
    expect(recipient(email, 'Gone1@example.test')).toMatchObject({ status: 'bounced', attempts: 1, smtpCode: 550, smtpReply: '550 5.1.1 No such user' });
    // Suppressed in the lower-case form every spelling of the address is matched in.
    expect(await suppressionOf('gone1@example.test')).toEqual([expect.objectContaining({ reason: 'bounce' })]);
    // The accepted recipient waited for the 451 and went out on the retry.
    expect(recipient(email, 'fine1@example.test')).toMatchObject({ status: 'delivered', attempts: 2 });
    // Refused with 452 on every attempt (the schedule has three waits): retried, never bounced.
    expect(recipient(email, 'Later1@example.test')).toMatchObject({ status: 'failed', attempts: 4, smtpCode: 452 });
    expect(harness.smtp.messagesFor('fine1@example.test')).toHaveLength(1);
  });

  it('sends to the recipients a server refused as too many at once, in further transactions of the same attempt', async () => {
    harness.smtp.limitRecipients(2);
    const to = ['many1@example.test', 'many2@example.test', 'many3@example.test', 'many4@example.test', 'many5@example.test'];
    const id = await send(to);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered', 'failed']);
    for (const address of to) expect(recipient(email, address)).toMatchObject({ status: 'delivered', attempts: 1, smtpCode: 250 });
    expect(harness.smtp.messages.map((message) => message.rcptTo)).toEqual([to.slice(0, 2), to.slice(2, 4), to.slice(4)]);
  });

  it('leaves to the retry schedule a recipient refused as too many once a further transaction takes no one', async () => {
    harness.smtp.rejectRecipient('crowded@example.test', 452, '4.5.3 Too many recipients');
    const id = await send(['roomy@example.test', 'crowded@example.test']);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered', 'failed']);
    expect(recipient(email, 'roomy@example.test')).toMatchObject({ status: 'delivered', attempts: 1 });
    // Sent again at once, alone, and refused again: that transaction took no one, so it waits for the schedule.
    expect(recipient(email, 'crowded@example.test')).toMatchObject({ status: 'failed', attempts: 4, smtpCode: 452 });
    expect(harness.smtp.messagesFor('roomy@example.test')).toHaveLength(1);
  });

  it('does not bounce a recipient refused with a 4xx at RCPT when the message then gets a 5xx at DATA', async () => {
    harness.smtp.rejectRecipient('later2@example.test', 452, '4.5.3 Too many recipients');
    harness.smtp.failNext(554, '5.7.1 Message rejected as spam');
    const id = await send(['fine2@example.test', 'later2@example.test']);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['bounced', 'failed']);
    expect(recipient(email, 'fine2@example.test')).toMatchObject({ status: 'bounced', attempts: 1, smtpCode: 554 });
    // The server never took the message for it, so the spam verdict is not its answer.
    expect(recipient(email, 'later2@example.test')).toMatchObject({ status: 'failed', attempts: 4, smtpCode: 452 });
    expect(await suppressionOf('later2@example.test')).toEqual([]);
  });

  it('bounces without suppressing when a 5xx is about the message, not the mailbox', async () => {
    harness.smtp.failNext(552, '5.3.4 Message size exceeds fixed limit');
    const id = await send('big@example.test');
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['bounced']);
    expect(email.recipients[0]).toMatchObject({ status: 'bounced', smtpCode: 552, smtpReply: '552 5.3.4 Message size exceeds fixed limit' });
    expect(await suppressionOf('big@example.test')).toEqual([]);
    expect(await bounceEventOf(id, 'big@example.test')).toMatchObject({ smtp: { code: 552 }, suppressed: false });
    // A smaller message to the same address goes out.
    const again = await send('big@example.test');
    expect((await emailReaching(harness.stack, harness.stack.rootKey, again, ['delivered', 'suppressed'])).status).toBe('delivered');
  });

  it('bounces without suppressing a policy refusal at RCPT, and a 5xx whose enhanced code says temporary', async () => {
    harness.smtp.rejectRecipient('policy@example.test', 550, '5.7.1 Client host blocked by policy');
    harness.smtp.rejectRecipient('full@example.test', 550, '4.2.2 Mailbox full');
    const id = await send(['policy@example.test', 'full@example.test']);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['bounced']);
    // The basic code governs the outcome (RFC 5321): both bounce. Neither reply says the address is bad.
    expect(recipient(email, 'policy@example.test')).toMatchObject({ status: 'bounced', smtpCode: 550 });
    expect(recipient(email, 'full@example.test')).toMatchObject({ status: 'bounced', smtpCode: 550 });
    expect(await suppressionOf('policy@example.test')).toEqual([]);
    expect(await suppressionOf('full@example.test')).toEqual([]);
    expect(await bounceEventOf(id, 'policy@example.test')).toMatchObject({ suppressed: false });
  });

  it('suppresses a mailbox refusal: a 5.1.x or 5.2.1 reply, or a RCPT 550 with no enhanced code', async () => {
    harness.smtp.rejectRecipient('unknown@example.test', 550, 'No such user here');
    harness.smtp.rejectRecipient('disabled@example.test', 550, '5.2.1 The email account that you tried to reach is disabled');
    harness.smtp.rejectRecipient('moved@example.test', 551, '5.1.6 User not local');
    const addresses = ['unknown@example.test', 'disabled@example.test', 'moved@example.test'];
    const id = await send(addresses);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['bounced']);
    for (const address of addresses) {
      expect(recipient(email, address)).toMatchObject({ status: 'bounced', attempts: 1 });
      expect(await suppressionOf(address)).toEqual([{ reason: 'bounce', details: recipient(email, address).smtpReply }]);
      expect(await bounceEventOf(id, address)).toMatchObject({ suppressed: true });
    }
  });

  it('bounces every recipient of a message refused at DATA with a 5.1.x, but suppresses none when it carried several: the reply cannot say whose mailbox is bad', async () => {
    const held = harness.smtp.holdNextData();
    const addresses = ['shared1@example.test', 'shared2@example.test'];
    const id = await send(addresses);
    // One transaction carried both: the 550 below answers the message, not either RCPT TO.
    expect([...(await held.arrived).rcptTo].sort()).toEqual(addresses);
    held.release({ code: 550, message: '5.1.1 Recipient address rejected' });
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['bounced']);
    for (const address of addresses) {
      expect(recipient(email, address)).toMatchObject({ status: 'bounced', attempts: 1, smtpCode: 550, smtpReply: '550 5.1.1 Recipient address rejected' });
      expect(await suppressionOf(address)).toEqual([]);
      expect(await bounceEventOf(id, address)).toMatchObject({ smtp: { code: 550 }, suppressed: false });
    }
  });

  it('suppresses on a 5.1.x at DATA when the message carried that recipient alone, also when the others were refused at RCPT', async () => {
    harness.smtp.failNext(550, '5.1.1 Recipient address rejected');
    const single = await send('alone@example.test');
    await emailReaching(harness.stack, harness.stack.rootKey, single, ['bounced']);
    expect(await suppressionOf('alone@example.test')).toEqual([{ reason: 'bounce', details: '550 5.1.1 Recipient address rejected' }]);
    expect(await bounceEventOf(single, 'alone@example.test')).toMatchObject({ suppressed: true });

    // The RCPT refusal is refused3's own answer; the DATA reply can only be about the one address the server took.
    harness.smtp.rejectRecipient('refused3@example.test', 550, '5.7.1 Relaying denied');
    harness.smtp.failNext(550, '5.1.1 Recipient address rejected');
    const mixed = await send(['refused3@example.test', 'taken3@example.test']);
    await emailReaching(harness.stack, harness.stack.rootKey, mixed, ['bounced']);
    expect(await suppressionOf('refused3@example.test')).toEqual([]);
    expect(await suppressionOf('taken3@example.test')).toEqual([{ reason: 'bounce', details: '550 5.1.1 Recipient address rejected' }]);
    expect(await bounceEventOf(mixed, 'taken3@example.test')).toMatchObject({ suppressed: true });
  });

  it('delivers in plaintext to an MX host that offers STARTTLS but fails the handshake', async () => {
    // The host listens on another loopback address with the same port, as MX hosts share port 25.
    const oldTls = await startTestSmtp({ host: '127.0.0.2', port: harness.smtp.port, brokenTls: true });
    try {
      harness.dns.set('oldtls.test', 'MX', [{ exchange: 'mx.oldtls.test', priority: 10 }]);
      harness.dns.set('mx.oldtls.test', 'A', '127.0.0.2');
      const id = await send('someone@oldtls.test');
      const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered', 'failed']);
      expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 1, smtpCode: 250 });
      expect(oldTls.messages).toHaveLength(1);
      expect(oldTls.messages[0].secure).toBe(false);
      // Hosts whose TLS works still get TLS.
      const other = await send('tls@example.test');
      await emailReaching(harness.stack, harness.stack.rootKey, other, ['delivered']);
      expect(harness.smtp.messagesFor('tls@example.test')[0].secure).toBe(true);
    } finally {
      await oldTls.close();
      harness.dns.clear('oldtls.test');
      harness.dns.clear('mx.oldtls.test');
    }
  });
});
