import { startTestDns, TestDns } from '@mailroom/testing';
import { MxResolver } from '../src/delivery/mx/mx-resolver';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

/**
 * A recipient domain's DNS is written by whoever owns it, so in mx mode it
 * must not be able to aim Mailroom's SMTP client at internal hosts.
 */
describe('mx mode and MX hosts on non-public addresses', () => {
  describe('the resolver, against a real DNS server on loopback', () => {
    let dns: TestDns;
    beforeAll(async () => {
      dns = await startTestDns();
      dns.set('internal.test', 'MX', [{ exchange: 'mx.internal.test', priority: 10 }]);
      dns.set('mx.internal.test', 'A', ['127.0.0.1', '10.0.0.5']);
      dns.set('mixed.test', 'MX', [
        { exchange: 'mx1.mixed.test', priority: 10 },
        { exchange: 'mx2.mixed.test', priority: 20 },
      ]);
      dns.set('mx1.mixed.test', 'A', '192.168.1.20');
      dns.set('mx2.mixed.test', 'A', ['8.8.8.8', '169.254.169.254']);
      dns.set('implicit.test', 'AAAA', 'fd00::25');
    });
    afterAll(() => dns?.stop());

    const resolver = (allowPrivate: boolean) => new MxResolver([dns.address], 1000, allowPrivate);

    it('bounces a domain whose mail hosts are all internal, naming the kind of address but not the address', async () => {
      expect(await resolver(false).route('internal.test')).toEqual({
        kind: 'unroutable',
        outcome: {
          kind: 'permanent',
          code: 550,
          reply: '550 5.4.4 the mail hosts of internal.test resolve only to non-public addresses (a loopback address), which this server does not deliver to',
        },
      });
      const implicit = await resolver(false).route('implicit.test');
      expect(implicit).toMatchObject({ kind: 'unroutable', outcome: { code: 550, reply: expect.stringContaining('(a unique local (ULA) address)') } });
      // The sender reads the reply, and the resolver may be an internal one: what it answered stays inside.
      expect(JSON.stringify(implicit)).not.toContain('fd00::25');
    });

    it('keeps only the public addresses of a domain that has both', async () => {
      const route = await resolver(false).route('mixed.test');
      expect(route).toMatchObject({ kind: 'hosts', hosts: [{ name: 'mx2.mixed.test', preference: 20, addresses: ['8.8.8.8'] }] });
    });

    it('delivers anywhere with DELIVERY_ALLOW_PRIVATE_MX', async () => {
      const route = await resolver(true).route('internal.test');
      expect(route).toMatchObject({ kind: 'hosts', hosts: [{ name: 'mx.internal.test', addresses: ['127.0.0.1', '10.0.0.5'] }] });
    });
  });

  describe('the whole stack with the default setting', () => {
    let harness: DeliveryHarness;
    beforeAll(async () => {
      harness = await startDeliveryHarness({ DELIVERY_ALLOW_PRIVATE_MX: 'false' });
      routeMailTo(harness.dns, 'example.test');
      await verifiedDomain(harness, 'acme.test');
    });
    afterAll(() => harness?.stop());

    it('bounces a recipient whose MX is on loopback and connects to nothing', async () => {
      const response = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'bob@example.test', subject: 'Hello', text: 'Hi' });
      expect(response.status).toBe(202);
      const email = await emailReaching(harness.stack, harness.stack.rootKey, response.body.id, ['bounced']);
      expect(email.recipients[0]).toMatchObject({ status: 'bounced', smtpCode: 550, smtpReply: expect.stringContaining('5.4.4 the mail hosts of example.test resolve only to non-public addresses (a loopback address)') });
      expect(harness.smtp.messagesFor('bob@example.test')).toHaveLength(0);
    });
  });
});
