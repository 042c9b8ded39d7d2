import { authenticate } from 'mailauth';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, testDnsResolver, verifiedDomain } from './support/delivery-harness';

/**
 * The worker asks the domains service for a domain's DKIM key and caches it
 * for SENDER_IDENTITY_CACHE_TTL. With the domains service away (a restart, a
 * deploy, its database down), mail from a domain it has already signed for
 * goes on being signed and delivered with the key it knows, rather than
 * waiting on the retry schedule.
 */
describe('delivery while the domains service is away', () => {
  let harness: DeliveryHarness;

  beforeAll(async () => {
    // The short RPC timeout is the emails service's own (how long the worker waits for a DKIM key). The gateway keeps
    // the harness's 20 s: adding a domain makes its DKIM key, and that took over 1 s on a loaded machine.
    harness = await startDeliveryHarness({ SENDER_IDENTITY_CACHE_TTL: '200ms' }, undefined, { emails: { RPC_TIMEOUT_MS: '1000' } });
    routeMailTo(harness.dns, 'example.test');
  }, 120000);
  afterAll(() => harness?.stop());

  /** mailauth's resolver over the test DNS, remembering each answer: the DKIM zone's server is the domains service, which the test stops. */
  const remembered = new Map<string, any>(); // mailauth types answers by record type
  const rememberingResolver = async (name: string, rrtype: string): Promise<any> => {
    const key = `${rrtype} ${name.toLowerCase()}`;
    if (!remembered.has(key)) remembered.set(key, await testDnsResolver(harness.dns)(name, rrtype));
    return remembered.get(key);
  };
  const dkimResultsOf = async (raw: Buffer) => {
    const verdict = await authenticate(raw, { ip: '127.0.0.1', helo: 'mailroom.test', sender: 'bounces@known.test', mta: 'mx.example.test', resolver: rememberingResolver });
    return verdict.dkim.results.map((result: { status: { result: string } }) => result.status.result);
  };
  const receivedWithSubject = (subject: string) => harness.smtp.messagesFor('ann@example.test').find((received) => received.raw.toString().includes(`Subject: ${subject}`));

  it('signs and delivers with the key it last read', async () => {
    await verifiedDomain(harness, 'known.test');
    const first = await harness.stack.api.post('/v1/emails', { from: 'hi@known.test', to: 'ann@example.test', subject: 'first', text: 'Hello' });
    await emailReaching(harness.stack, harness.stack.rootKey, first.body.id, ['delivered']);
    expect(await dkimResultsOf(receivedWithSubject('first')!.raw)).toEqual(['pass']);

    // Accepted while the domains service runs (a live send checks the domain), due once it is gone.
    const scheduledAt = new Date(Date.now() + 3000).toISOString();
    const later = await harness.stack.api.post('/v1/emails', { from: 'hi@known.test', to: 'ann@example.test', subject: 'while away', text: 'Hello', scheduledAt });
    expect(later.status).toBe(202);
    await harness.stack.stopApp('domains');

    await emailReaching(harness.stack, harness.stack.rootKey, later.body.id, ['delivered']);
    expect(await dkimResultsOf(receivedWithSubject('while away')!.raw)).toEqual(['pass']);
      await harness.stack.startApp('domains');
  });

  it('accepts live sends from a domain it has sent from, and answers 503 for one it has not asked about', async () => {
    await verifiedDomain(harness, 'busy.test');
    await verifiedDomain(harness, 'quiet.test');
    const before = await harness.stack.api.post('/v1/emails', { from: 'hi@busy.test', to: 'ann@example.test', subject: 'before', text: 'Hello' });
    expect(before.status).toBe(202);
    await emailReaching(harness.stack, harness.stack.rootKey, before.body.id, ['delivered']); // the worker has read its key too

    await harness.stack.stopApp('domains');
    try {
      const during = await harness.stack.api.post('/v1/emails', { from: 'hi@busy.test', to: 'ann@example.test', subject: 'during', text: 'Hello' });
      expect(during.status).toBe(202);
      const unknown = await harness.stack.api.post('/v1/emails', { from: 'hi@quiet.test', to: 'ann@example.test', subject: 'unknown', text: 'Hello' });
      expect(unknown.status).toBe(503);
      expect(unknown.body.error.code).toBe('service_unavailable');
      await emailReaching(harness.stack, harness.stack.rootKey, during.body.id, ['delivered']);
    } finally {
      await harness.stack.startApp('domains');
    }
  });

  it('refuses live sends from a domain deleted before the domains service went away (422), instead of its last status', async () => {
    const domain = await verifiedDomain(harness, 'gone.test');
    const before = await harness.stack.api.post('/v1/emails', { from: 'hi@gone.test', to: 'ann@example.test', subject: 'before', text: 'Hello' });
    await emailReaching(harness.stack, harness.stack.rootKey, before.body.id, ['delivered']);
    expect((await harness.stack.api.delete(`/v1/domains/${domain.id}`)).status).toBe(200);

    await harness.stack.stopApp('domains');
    try {
      const after = await harness.stack.api.post('/v1/emails', { from: 'hi@gone.test', to: 'ann@example.test', subject: 'after', text: 'Hello' });
      expect(after.status).toBe(422);
      expect(after.body.error).toMatchObject({ code: 'validation_error', message: expect.stringContaining('from') });
    } finally {
      await harness.stack.startApp('domains');
    }
  });
});
