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

  it("keeps each recipient's own RCPT reply when DATA then fails temporarily", async () => {
    harness.smtp.rejectRecipient('gone1@example.test', 550, '5.1.1 No such user');
    harness.smtp.rejectRecipient('later1@example.test', 452, '4.5.3 Too many recipients');
    harness.smtp.failNext(451, '4.3.0 Try again later');
    const id = await send(['fine1@example.test', 'gone1@example.test', 'later1@example.test']);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered', 'bounced', 'failed']);
    // The 550 was this address's answer: a bounce on the first attempt, not a retry under the DATA reply.
    expect(recipient(email, 'gone1@example.test')).toMatchObject({ status: 'bounced', attempts: 1, smtpCode: 550, smtpReply: '550 5.1.1 No such user' });
    // The accepted recipient waited for the 451 and went out on the retry.
    expect(recipient(email, 'fine1@example.test')).toMatchObject({ status: 'delivered', attempts: 2 });
    // Refused with 452 on every attempt (the schedule has three waits): retried, never bounced.
    expect(recipient(email, 'later1@example.test')).toMatchObject({ status: 'failed', attempts: 4, smtpCode: 452 });
    expect(harness.smtp.messagesFor('fine1@example.test')).toHaveLength(1);
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
});
