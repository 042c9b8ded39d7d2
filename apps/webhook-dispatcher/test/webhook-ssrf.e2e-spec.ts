import { eventually } from '@mailroom/testing';
import { failedAttemptAtStoredUrl } from './support/stored-url-attempt';
import { webhookSuite } from './support/webhook-suite';

const DNS_TIMEOUT_MS = 1000;

/** A stack WITHOUT WEBHOOK_ALLOW_PRIVATE_NETWORKS: the SSRF guard is on. Host names resolve through a loopback DNS server. */
describe('webhook SSRF guard', () => {
  const suite = webhookSuite(
    // http is allowed only so that a loopback receiver could be reached at all, were the guard to fail.
    { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_RETRY_SCHEDULE: '0s', WEBHOOK_POLL_MS: '50', DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS) },
    (dns) => {
      dns.set('loopback.webhooks.test', 'A', '127.0.0.1');
      dns.set('loopback6.webhooks.test', 'AAAA', '::1');
      dns.delay('blackhole.webhooks.test', Infinity);
    },
  );

  it.each([
    ['loopback', 'http://127.0.0.1/hooks'],
    ['loopback, elsewhere in 127/8', 'http://127.1.2.3/hooks'],
    ['private 10/8', 'https://10.0.0.5/hooks'],
    ['private 172.16/12', 'https://172.20.1.1/hooks'],
    ['private 192.168/16', 'https://192.168.0.10/hooks'],
    ['link-local', 'https://169.254.10.1/hooks'],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data/'],
    ['carrier-grade NAT', 'https://100.64.1.1/hooks'],
    ['multicast', 'https://224.0.0.1/hooks'],
    ['reserved 240/4', 'https://240.0.0.1/hooks'],
    ['unspecified', 'https://0.0.0.0/hooks'],
    ['IETF 192.0.0/24', 'https://192.0.0.8/hooks'],
    ['benchmarking 198.18/15', 'https://198.18.0.1/hooks'],
    ['IPv6 loopback', 'https://[::1]/hooks'],
    ['IPv6 unspecified', 'https://[::]/hooks'],
    ['IPv6 ULA', 'https://[fd12:3456::1]/hooks'],
    ['IPv6 link-local', 'https://[fe80::1]/hooks'],
    ['IPv6 multicast', 'https://[ff02::1]/hooks'],
    ['IPv4-mapped IPv6', 'https://[::ffff:127.0.0.1]/hooks'],
    ['IPv4-mapped IPv6 (hex)', 'https://[::ffff:a9fe:a9fe]/hooks'],
    ['decimal IPv4', 'http://2130706433/hooks'],
    ['octal IPv4', 'http://0177.0.0.1/hooks'],
    ['hex IPv4', 'http://0x7f.0.0.1/hooks'],
    ['decimal form of a public address', 'https://134744072/hooks'],
    ['trailing-dot decimal', 'https://134744072./hooks'],
    ['percent-encoded decimal', 'https://%38.8.8.8/hooks'],
  ])('refuses a literal %s address at creation with 422 naming url (%s)', async (_, url) => {
    const response = await suite.stack.api.post('/v1/webhooks', { url, events: ['*'] });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.message).toMatch(/^url: must not/);
  });

  it('refuses, when connecting, a host name that resolves to loopback: nothing reaches the receiver', async () => {
    const webhooks = [
      await suite.fixtures.create(suite.receiver.url('/hooks', 'loopback.webhooks.test'), ['email.delivered']),
      await suite.fixtures.create(suite.receiver.url('/hooks', 'loopback6.webhooks.test'), ['email.delivered']),
    ];
    await suite.events.publish('email.delivered');
    for (const webhook of webhooks) {
      const [delivery] = await eventually(async () => {
        const list = await suite.fixtures.deliveries(webhook.id);
        return list[0]?.status === 'failed' && list;
      });
      // The kind of address, never the address: the resolver's answer for a name (an internal one, in a
      // split-horizon DNS) is nothing a key holder should learn by pointing a webhook at it.
      expect(delivery.error).toMatch(/^refused to connect to [^:]+: it resolves to a loopback address$/);
      expect(delivery.error).not.toContain('127.0.0.1');
      expect(delivery.responseCode).toBeNull();
      expect((await suite.stack.api.get(`/v1/webhooks/${webhook.id}`)).body.status).toBe('failing');
    }
    expect(suite.receiver.requests).toHaveLength(0);
  });

  /**
   * A literal refused address can still be stored: the webhook was made while
   * WEBHOOK_ALLOW_PRIVATE_NETWORKS was true (a development setup taken to
   * production), or before a range joined the refused list. The guard must
   * record the refusal as a failed attempt, as it does for a name, rather than
   * leave the delivery pending for ever.
   */
  it('records a stored literal refused address as a failed attempt: nothing reaches the receiver', async () => {
    const { webhook, delivery } = await failedAttemptAtStoredUrl(suite, suite.receiver.url('/literal'), 'email.opened');
    expect(delivery.error).toBe('refused to connect to 127.0.0.1: it is a loopback address');
    expect(delivery.responseCode).toBeNull();
    expect((await suite.stack.api.get(`/v1/webhooks/${webhook.id}`)).body).toMatchObject({ status: 'failing', failureCount: 1 });
    expect(suite.receiver.requests).toHaveLength(0);
  });

  it('fails an attempt whose host never resolves at the DNS deadline, saying so', async () => {
    const webhook = await suite.fixtures.create('https://blackhole.webhooks.test/hooks', ['email.clicked']);
    await suite.events.publish('email.clicked');
    const delivery = await suite.fixtures.firstDeliveryOnce(webhook.id, 'failed');
    expect(delivery.error).toBe(`DNS lookup of blackhole.webhooks.test timed out after ${DNS_TIMEOUT_MS} ms`);
    expect(delivery.responseCode).toBeNull();
    expect(delivery.durationMs).toBeGreaterThanOrEqual(DNS_TIMEOUT_MS - 100);
  });

  it('still accepts a public https URL', async () => {
    const response = await suite.stack.api.post('/v1/webhooks', { url: 'https://hooks.example.com/mailroom', events: ['email.bounced'] });
    expect(response.status).toBe(201);
    await suite.stack.api.delete(`/v1/webhooks/${response.body.id}`);
  });
});
