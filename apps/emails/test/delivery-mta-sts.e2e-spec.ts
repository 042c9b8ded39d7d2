import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { createTestCa, eventually, startTestSmtp, TestSmtp } from '@mailroom/testing';
import { scrapeMetrics } from '../../../scripts/prometheus-text';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

/** A policy file as RFC 8461 §3.2 writes one. */
const policy = (mode: string, ...mx: string[]) => ['version: STSv1', `mode: ${mode}`, ...mx.map((pattern) => `mx: ${pattern}`), 'max_age: 86400', ''].join('\r\n');

/**
 * MTA-STS (RFC 8461) in mx mode, against a real HTTPS policy server and real SMTP servers on loopback, whose
 * certificates come from a CA of the test's own (trusted through TLS_EXTRA_CA_FILE), found through the test DNS.
 */
describe('delivery under MTA-STS policies', () => {
  const ca = createTestCa();
  /** The policy each mta-sts.<domain> host serves. */
  const policies = new Map<string, string>();
  let policyServer: Server;
  let harness: DeliveryHarness;
  /** MX hosts at other loopback addresses, on the harness's SMTP_MX_PORT. */
  let verified: TestSmtp;
  let plaintextOnly: TestSmtp;
  let wrongName: TestSmtp;

  /** `domain`'s MX is mx.<domain> at `address`, it announces policy `id`, and its policy host (on loopback) serves `text`. */
  const publish = (domain: string, address: string, id: string, text: string) => {
    harness.dns.set(domain, 'MX', [{ exchange: `mx.${domain}`, priority: 10 }]);
    harness.dns.set(`mx.${domain}`, 'A', address);
    harness.dns.set(`_mta-sts.${domain}`, 'TXT', `v=STSv1; id=${id};`);
    harness.dns.set(`mta-sts.${domain}`, 'A', '127.0.0.1');
    policies.set(`mta-sts.${domain}`, text);
  };

  beforeAll(async () => {
    const names = ['enforced.test', 'unlisted.test', 'no-starttls.test', 'wrong-name.test', 'testing-mode.test', 'refreshed.test'];
    policyServer = createServer(ca.issueServer(names.map((name) => `mta-sts.${name}`)), (request, response) => {
      const text = policies.get((request.headers.host ?? '').replace(/:\d+$/, ''));
      if (request.url !== '/.well-known/mta-sts.txt' || text === undefined) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'text/plain' }).end(text);
    });
    await new Promise<void>((resolve) => policyServer.listen(0, '127.0.0.1', resolve));
    harness = await startDeliveryHarness({ TLS_EXTRA_CA_FILE: ca.caFile, MTA_STS_HTTPS_PORT: String((policyServer.address() as AddressInfo).port) });
    const port = harness.smtp.port;
    verified = await startTestSmtp({ host: '127.0.0.2', port, tls: ca.issueServer(['mx.enforced.test', 'mx.unlisted.test', 'mx.refreshed.test']) });
    plaintextOnly = await startTestSmtp({ host: '127.0.0.3', port, disableStartTls: true });
    wrongName = await startTestSmtp({ host: '127.0.0.4', port, tls: ca.issueServer(['mx.someone-else.test']) });
    publish('enforced.test', '127.0.0.2', 'v1', policy('enforce', 'mx.enforced.test'));
    publish('unlisted.test', '127.0.0.2', 'v1', policy('enforce', '*.mail-provider.test'));
    publish('no-starttls.test', '127.0.0.3', 'v1', policy('enforce', 'mx.no-starttls.test'));
    publish('wrong-name.test', '127.0.0.4', 'v1', policy('enforce', 'mx.wrong-name.test'));
    publish('testing-mode.test', '127.0.0.3', 'v1', policy('testing', 'mx.testing-mode.test'));
    publish('refreshed.test', '127.0.0.2', 'v1', policy('enforce', 'mx.refreshed.test'));
    routeMailTo(harness.dns, 'no-policy.test');
    await verifiedDomain(harness, 'acme.test');
  });
  afterAll(async () => {
    for (const server of [verified, plaintextOnly, wrongName]) await server?.close();
    await harness?.stop();
    await new Promise((resolve) => policyServer?.close(resolve));
  });

  const send = async (to: string) => {
    const response = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to, subject: 'Hello', text: 'Hi' });
    expect(response.status).toBe(202);
    return response.body.id as string;
  };

  /** The recipient once an attempt has failed it for now (deferred, or failed once the short retry schedule is used up). */
  const heldBack = (id: string) =>
    eventually(async () => {
      const { body } = await harness.stack.api.get(`/v1/emails/${id}`);
      const [recipient] = body.recipients;
      return ['deferred', 'failed'].includes(recipient.status) ? recipient : undefined;
    }, 15_000);

  it('delivers over TLS with a checked certificate to an MX host the enforced policy lists, and caches the policy', async () => {
    const id = await send('ann@enforced.test');
    await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    expect(verified.messagesFor('ann@enforced.test')).toHaveLength(1);
    expect(verified.messagesFor('ann@enforced.test')[0].secure).toBe(true);
    const { rows } = await harness.db.query(`SELECT policy_id, mode, mx, max_age, expires_at - fetched_at AS lifetime FROM emails.mta_sts_policies WHERE domain = 'enforced.test'`);
    expect(rows).toEqual([{ policy_id: 'v1', mode: 'enforce', mx: ['mx.enforced.test'], max_age: 86400, lifetime: { days: 1 } }]);
  });

  it('holds back, for a retry, a recipient none of whose MX hosts the enforced policy lists, and connects to none', async () => {
    const connectionsBefore = verified.connectionCount;
    const recipient = await heldBack(await send('bob@unlisted.test'));
    expect(recipient.smtpReply).toBe('MTA-STS: no MX host of unlisted.test matches its policy (mx: *.mail-provider.test)');
    expect(verified.messagesFor('bob@unlisted.test')).toHaveLength(0);
    expect(verified.connectionCount).toBe(connectionsBefore);
    const metrics = await scrapeMetrics(harness.stack.opsUrl('emails'));
    expect(metrics.value('mailroom_mta_sts_refusals_total', { reason: 'no_matching_mx' })).toBeGreaterThanOrEqual(1);
  });

  it('never falls back to plaintext for an enforced policy: an MX host without STARTTLS holds the recipient back', async () => {
    const recipient = await heldBack(await send('carol@no-starttls.test'));
    expect(recipient.smtpReply).toMatch(/^MTA-STS: the recipient domain's policy requires TLS with a valid certificate for mx\.no-starttls\.test, which failed \(/);
    expect(plaintextOnly.messagesFor('carol@no-starttls.test')).toHaveLength(0);
  });

  it('holds back a recipient whose MX host presents a certificate for another name', async () => {
    const recipient = await heldBack(await send('dave@wrong-name.test'));
    expect(recipient.smtpReply).toMatch(/^MTA-STS: the recipient domain's policy requires TLS with a valid certificate for mx\.wrong-name\.test, which failed \(.*altnames/);
    expect(wrongName.messagesFor('dave@wrong-name.test')).toHaveLength(0);
  });

  it('delivers as without a policy to a domain whose policy is in testing mode, in plaintext too', async () => {
    const id = await send('erin@testing-mode.test');
    await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    expect(plaintextOnly.messagesFor('erin@testing-mode.test')[0].secure).toBe(false);
  });

  it('delivers as before to a domain with no policy, over opportunistic TLS whose certificate is not checked', async () => {
    const id = await send('frank@no-policy.test');
    await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    // The harness's SMTP server presents the smtp-server package's self-signed certificate.
    expect(harness.smtp.messagesFor('frank@no-policy.test')[0].secure).toBe(true);
  });

  it('refreshes a cached policy due for it while its record announces the same id, and keeps it for its max_age from then', async () => {
    await emailReaching(harness.stack, harness.stack.rootKey, await send('hana@refreshed.test'), ['delivered']);
    // 13 hours later (a policy whose max_age is a day is refreshed after half of it), still cached, the host serves a
    // policy with another pattern under the same id; a restart forgets the answer remembered in memory.
    await harness.db.query(`UPDATE emails.mta_sts_policies SET fetched_at = fetched_at - interval '13 hours', expires_at = expires_at - interval '13 hours' WHERE domain = 'refreshed.test'`);
    policies.set('mta-sts.refreshed.test', policy('enforce', 'mx.refreshed.test', '*.backup.refreshed.test'));
    await harness.stack.stopApp('emails');
    await harness.stack.startApp('emails');
    await emailReaching(harness.stack, harness.stack.rootKey, await send('ivan@refreshed.test'), ['delivered']);
    const { rows } = await harness.db.query(`SELECT policy_id, mx, expires_at > now() + interval '23 hours' AS extended FROM emails.mta_sts_policies WHERE domain = 'refreshed.test'`);
    expect(rows).toEqual([{ policy_id: 'v1', mx: ['mx.refreshed.test', '*.backup.refreshed.test'], extended: true }]);
  });

  it('keeps enforcing a cached policy across a restart after its record is stripped and its MX pointed elsewhere', async () => {
    // What an attacker on the DNS path does: no _mta-sts record, no policy host, and an MX of their own.
    harness.dns.clear('_mta-sts.enforced.test');
    policies.delete('mta-sts.enforced.test');
    harness.dns.set('enforced.test', 'MX', [{ exchange: 'mx.attacker.test', priority: 10 }]);
    harness.dns.set('mx.attacker.test', 'A', '127.0.0.3');
    await harness.stack.stopApp('emails');
    await harness.stack.startApp('emails');
    const recipient = await heldBack(await send('gina@enforced.test'));
    expect(recipient.smtpReply).toBe('MTA-STS: no MX host of enforced.test matches its policy (mx: mx.enforced.test)');
    expect(plaintextOnly.messagesFor('gina@enforced.test')).toHaveLength(0);
  });
});
