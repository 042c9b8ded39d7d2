import { eventually } from '@mailroom/testing';
import { DeliveryHarness, emailReaching, eventsOf, listedUnderStatus, routeMailTo, startDeliveryHarness } from './support/delivery-harness';

/**
 * Test mode (issue 5): a test key's emails never open an SMTP connection; the
 * address decides the outcome, and the same events are written as in live mode.
 */
describe('delivery in test mode', () => {
  let harness: DeliveryHarness;
  let testKey: string;

  beforeAll(async () => {
    harness = await startDeliveryHarness();
    // Even with a working MX for the domain, nothing may reach it.
    routeMailTo(harness.dns, 'example.com');
    testKey = (await harness.stack.issueKey({ mode: 'test' })).key;
  });
  afterAll(() => harness?.stop());

  const send = async (to: string) => {
    const response = await harness.stack.api.post('/v1/emails', { from: 'App <app@unverified.example>', to, subject: 'Simulated', text: 'hi' }, { key: testKey });
    expect(response.status).toBe(202);
    return response.body.id as string;
  };
  const types = async (id: string) => (await eventsOf(harness.db, id)).map((event) => event.type);

  it('delivers delivered@ and any other address', async () => {
    for (const to of ['delivered@example.com', 'delivered+tag@elsewhere.org', 'alice@example.com']) {
      const id = await send(to);
      const email = await emailReaching(harness.stack, testKey, id, ['delivered']);
      expect(email.deliveredAt).toEqual(expect.any(String));
      expect(email.recipients[0]).toMatchObject({ address: to, status: 'delivered', attempts: 1, smtpCode: 250 });
      expect(await types(id)).toEqual(['email.queued', 'email.delivered']);
    }
  });

  it('bounces bounced@ and suppresses it in test mode only', async () => {
    const id = await send('bounced+x@example.com');
    const email = await emailReaching(harness.stack, testKey, id, ['bounced']);
    expect(email.recipients[0]).toMatchObject({ status: 'bounced', smtpCode: 550 });
    const events = await eventsOf(harness.db, id);
    expect(events.map((event) => event.type)).toEqual(['email.queued', 'email.bounced']);
    expect(events[1]).toMatchObject({ mode: 'test', data: { recipient: 'bounced+x@example.com', smtp: { code: 550 }, subject: 'Simulated' } });
    const { rows } = await harness.db.query(`SELECT mode, reason FROM emails.suppressions WHERE address = 'bounced+x@example.com'`);
    expect(rows).toEqual([{ mode: 'test', reason: 'bounce' }]);
  });

  it('delivers complained@, then records the complaint and suppresses the address', async () => {
    const id = await send('complained@example.com');
    await emailReaching(harness.stack, testKey, id, ['delivered']);
    expect(await types(id)).toEqual(['email.queued', 'email.delivered', 'email.complained']);
    const { rows } = await harness.db.query(`SELECT reason FROM emails.suppressions WHERE mode = 'test' AND address = 'complained@example.com'`);
    expect(rows).toEqual([{ reason: 'complaint' }]);
    // The complaints consumer applies the simulated complaint as it would a reported one: the email is its recipient's.
    await eventually(async () => typeof (await harness.stack.api.get(`/v1/emails/${id}`, { key: testKey })).body.complainedAt === 'string', 15000);
  });

  it('fails failed@ and suppresses suppressed@', async () => {
    const failed = await send('failed@example.com');
    expect((await emailReaching(harness.stack, testKey, failed, ['failed'])).recipients[0].status).toBe('failed');
    expect(await types(failed)).toEqual(['email.queued', 'email.failed']);

    const suppressed = await send('suppressed@example.com');
    expect((await emailReaching(harness.stack, testKey, suppressed, ['suppressed'])).recipients[0].status).toBe('suppressed');
    expect(await types(suppressed)).toEqual(['email.queued', 'email.suppressed']);
  });

  it('suppresses at its time a recipient of a scheduled email put on the list while it waited, and sends to the others', async () => {
    const inAnHour = new Date(Date.now() + 3600_000).toISOString();
    const response = await harness.stack.api.post(
      '/v1/emails',
      { from: 'app@unverified.example', to: ['later-kept@example.com', 'later-listed@example.com', 'bounced+later@example.com'], subject: 'Later', text: 'hi', scheduledAt: inAnHour },
      { key: testKey },
    );
    expect(response.status).toBe(202);
    const id = response.body.id as string;
    expect((await harness.stack.api.post('/v1/suppressions', { email: 'later-listed@example.com' }, { key: testKey })).status).toBe(201);
    await harness.db.query(`UPDATE emails.emails SET next_attempt_at = now() WHERE id = $1`, [id]);
    // Delivered, bounced and suppressed recipients: one delivered makes the email delivered (README "Email status").
    const email = await emailReaching(harness.stack, testKey, id, ['delivered']);
    const statuses = Object.fromEntries(email.recipients.map((recipient: { address: string; status: string }) => [recipient.address, recipient.status]));
    expect(statuses).toEqual({ 'later-kept@example.com': 'delivered', 'later-listed@example.com': 'suppressed', 'bounced+later@example.com': 'bounced' });
    const events = (await eventsOf(harness.db, id)).map((event) => `${event.type} ${event.data.recipient ?? ''}`.trim());
    expect(events.slice(0, 2)).toEqual(['email.scheduled', 'email.queued']);
    expect(events.slice(2).sort()).toEqual(['email.bounced bounced+later@example.com', 'email.delivered later-kept@example.com', 'email.suppressed later-listed@example.com']);
  });

  it('delays delayed@ once, then delivers it', async () => {
    const id = await send('delayed@example.com');
    const email = await emailReaching(harness.stack, testKey, id, ['delivered']);
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(await types(id)).toEqual(['email.queued', 'email.delivery_delayed', 'email.delivered']);
  });

  it('lists each outcome under the status filter of the interface, its totalCount following the status change', async () => {
    const outcomes = ['delivered', 'bounced', 'failed'];
    const ids = new Map<string, string>();
    for (const status of outcomes) {
      const id = await send(`${status}+filter@example.com`);
      await emailReaching(harness.stack, testKey, id, [status]);
      ids.set(status, id);
    }
    for (const status of outcomes) {
      const listed = await listedUnderStatus(harness.stack, testKey, status);
      expect({ status, ...listed }).toEqual({ status, ids: expect.arrayContaining([ids.get(status)]), statuses: [status], totalCount: listed.size, size: listed.size });
    }
    // Every email of this suite has settled: none is left queued, and the count says so too.
    const { body: queued } = await harness.stack.api.get('/v1/emails?status=queued', { key: testKey });
    expect(queued).toEqual({ object: 'list', data: [], hasMore: false, totalCount: 0 });
  });

  it('never opened an SMTP connection', () => {
    expect(harness.smtp.connectionCount).toBe(0);
    expect(harness.smtp.messages).toHaveLength(0);
  });
});
