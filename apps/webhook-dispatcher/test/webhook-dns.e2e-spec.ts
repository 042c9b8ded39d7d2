import { eventually, freePort } from '@mailroom/testing';
import { webhookSuite } from './support/webhook-suite';

// Long enough that the healthy webhook's deliveries, on a loaded machine, arrive well before it runs out.
const DNS_TIMEOUT_MS = 8000;
const BLACK_HOLES = ['blackhole-0.webhooks.test', 'blackhole-1.webhooks.test', 'blackhole-2.webhooks.test'];
const HEALTHY_HOST = 'receiver.webhooks.test';
const DUAL_STACK_HOST = 'dual.webhooks.test';

/**
 * Webhooks whose host names never resolve (their DNS black-holes every query)
 * must not hold the lookups of everyone else's webhooks. With getaddrinfo,
 * Node gives host lookups at most two libuv threads: two lookups of a
 * black-holed name made every other lookup wait the system resolver's full
 * timeout. The dispatcher resolves through DNS_SERVERS here, a loopback DNS
 * server that answers the healthy name at once and never answers the others.
 */
describe('webhook host lookups next to names that never resolve', () => {
  // Private networks are allowed so the healthy webhook can reach a loopback receiver; the SSRF guard's own
  // lookups are the same ones plus the address check (webhook-ssrf.e2e-spec.ts).
  const suite = webhookSuite(
    {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS),
      WEBHOOK_TIMEOUT_MS: String(DNS_TIMEOUT_MS * 3),
      WEBHOOK_RETRY_SCHEDULE: '0s',
      WEBHOOK_POLL_MS: '50',
    },
    (dns) => {
      dns.set(HEALTHY_HOST, 'A', '127.0.0.1');
      for (const name of BLACK_HOLES) dns.delay(name, Infinity);
    },
  );

  it("delivers a healthy webhook's events while lookups of black-holed names hang, and fails those attempts with a DNS timeout", async () => {
    const stuck = [];
    for (const name of BLACK_HOLES) stuck.push(await suite.fixtures.create(`http://${name}:${suite.receiver.port}/hooks`, ['email.bounced']));
    const healthy = await suite.fixtures.create(suite.receiver.url('/hooks', HEALTHY_HOST), ['email.delivered']);

    // Two events for each black-holed webhook: six lookups that will never be answered, more than the two threads
    // getaddrinfo could have. Their queries reaching the DNS server shows the lookups are under way.
    await suite.events.publish('email.bounced');
    await suite.events.publish('email.bounced');
    await eventually(() => BLACK_HOLES.every((name) => suite.dns.queries.some((query) => query.name === name)), DNS_TIMEOUT_MS);

    const healthyEvents: string[] = [];
    for (let i = 0; i < 5; i += 1) healthyEvents.push((await suite.events.publish('email.delivered')).id);
    await eventually(() => suite.receiver.requests.length === healthyEvents.length, DNS_TIMEOUT_MS);
    expect(suite.receiver.eventIds().sort()).toEqual([...healthyEvents].sort());
    // They arrived while every black-holed lookup was still waiting: no stuck delivery has an attempt yet.
    const stuckDeliveries = (await Promise.all(stuck.map((webhook) => suite.fixtures.deliveries(webhook.id)))).flat();
    expect(stuckDeliveries).toHaveLength(BLACK_HOLES.length * 2);
    expect(stuckDeliveries.map((delivery) => delivery.attempts)).toEqual(stuckDeliveries.map(() => 0));

    // Each stuck attempt ends at the DNS deadline, well before the request timeout, and says why.
    for (const [index, webhook] of stuck.entries()) {
      const deliveries = await eventually(async () => {
        const list = await suite.fixtures.deliveries(webhook.id);
        return list.length === 2 && list.every((delivery) => delivery.status === 'failed') && list;
      }, DNS_TIMEOUT_MS * 3);
      for (const delivery of deliveries) {
        expect(delivery.attemptLog).toHaveLength(1);
        const [attempt] = delivery.attemptLog;
        expect(attempt.responseCode).toBeNull();
        // The lookup's deadline, or c-ares's own timeout when it gives up first (it does past about 5 s per try,
        // whatever it was told): either way the message says how long the lookup took, within the budget.
        const reported = /^DNS lookup of (\S+) timed out after (\d+) ms$/.exec(attempt.error ?? '');
        expect(reported?.[1]).toBe(BLACK_HOLES[index]);
        const tookMs = Number(reported?.[2]);
        expect(tookMs).toBeGreaterThanOrEqual(DNS_TIMEOUT_MS / 2);
        expect(tookMs).toBeLessThanOrEqual(DNS_TIMEOUT_MS);
        expect(attempt.durationMs).toBeGreaterThanOrEqual(tookMs - 100);
        expect(attempt.durationMs).toBeLessThan(DNS_TIMEOUT_MS * 3);
      }
    }
    expect((await suite.fixtures.deliveries(healthy.id)).map((delivery) => delivery.status)).toEqual(healthyEvents.map(() => 'succeeded'));
  });

  it('says why an attempt failed when every address of a host with A and AAAA records refuses the connection', async () => {
    // Node tries both families (autoSelectFamily) and, when both fail, reports an AggregateError with no message.
    const closedPort = await freePort();
    suite.dns.set(DUAL_STACK_HOST, 'A', '127.0.0.1');
    suite.dns.set(DUAL_STACK_HOST, 'AAAA', '::1');
    const webhook = await suite.fixtures.create(`http://${DUAL_STACK_HOST}:${closedPort}/hooks`, ['email.complained']);
    await suite.events.publish('email.complained');
    const [delivery] = await eventually(async () => {
      const list = await suite.fixtures.deliveries(webhook.id);
      return list.length === 1 && list[0].status === 'failed' && list;
    }, DNS_TIMEOUT_MS);
    expect(delivery.attemptLog).toHaveLength(1);
    // One message per address tried, in the order Node tried them.
    expect(String(delivery.attemptLog[0].error).split('; ').sort()).toEqual([`connect ECONNREFUSED 127.0.0.1:${closedPort}`, `connect ECONNREFUSED ::1:${closedPort}`]);
  });
});
