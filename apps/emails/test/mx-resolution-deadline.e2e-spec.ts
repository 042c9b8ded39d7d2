import { performance } from 'node:perf_hooks';
import { SilentDns, startSilentDns, startTestDns, TestDns } from '@mailroom/testing';
import { MailRoute, mxResolutionBudgetMs, MxResolver } from '../src/delivery/mx/mx-resolver';

// Two seconds, as by default: Node looks at c-ares's timeouts once a second at most, so a dead server is given up
// on up to a second late, and a shorter timeout would leave the tests measuring that tick rather than the budget.
const DNS_TIMEOUT_MS = 2000;
// The whole resolution's budget (twice DNS_TIMEOUT_MS: the MX query, then the hosts' address queries) and room for
// a loaded machine. A resolution that waited for c-ares to try every server in turn takes at least three.
const BOUND_MS = mxResolutionBudgetMs(DNS_TIMEOUT_MS) + DNS_TIMEOUT_MS / 2;

async function timed(route: Promise<MailRoute>): Promise<{ route: MailRoute; tookMs: number }> {
  const started = performance.now();
  return { route: await route, tookMs: performance.now() - started };
}

let dns: TestDns;
/** Dead servers, each test its own, so that what one test counts of their queries is its own. */
const silent: SilentDns[] = [];
// At the top level, not in the describe: Jest starts concurrent tests right after the top level's beforeAll.
beforeAll(async () => {
  dns = await startTestDns();
  for (let i = 0; i < 6; i++) silent.push(await startSilentDns());
  dns.set('hanging-hosts.test', 'MX', [
    { exchange: 'mx1.hanging-hosts.test', priority: 10 },
    { exchange: 'mx2.hanging-hosts.test', priority: 20 },
  ]);
  dns.delay('mx1.hanging-hosts.test', Infinity);
  dns.delay('mx2.hanging-hosts.test', Infinity);
  dns.set('reachable.test', 'MX', [{ exchange: 'mx.reachable.test', priority: 10 }]);
  dns.set('mx.reachable.test', 'A', '93.184.216.34');
  dns.set('half-hanging.test', 'MX', [
    { exchange: 'mx1.half-hanging.test', priority: 10 },
    { exchange: 'mx2.half-hanging.test', priority: 20 },
  ]);
  dns.delay('mx1.half-hanging.test', Infinity);
  dns.set('mx2.half-hanging.test', 'A', '93.184.216.35');
});
afterAll(async () => {
  await dns?.stop();
  await Promise.all(silent.map((server) => server.stop()));
});

/**
 * A recipient domain's route holds a delivery slot while it is resolved, so
 * the whole resolution has one deadline, however many servers, tries and MX
 * hosts c-ares would otherwise work through one timeout at a time. Real
 * c-ares against DNS servers on loopback: one that answers, and dead ones
 * that swallow every query.
 *
 * The tests run concurrently: each mostly waits out DNS timeouts, on resolvers, dead servers and names of its own.
 */
describe('MX resolution within one deadline', () => {
  it.concurrent('gives up on a domain whose every DNS server is dead within the budget, as a DNS failure the delivery retries', async () => {
    const resolver = new MxResolver(
      silent.slice(0, 4).map((server) => server.address),
      DNS_TIMEOUT_MS,
    );
    const { route, tookMs } = await timed(resolver.route('dead-servers.test'));
    expect(route).toEqual({ kind: 'unroutable', outcome: { kind: 'temporary', code: null, reply: '4.4.3 DNS lookup for dead-servers.test failed (ETIMEOUT)' } });
    expect(silent[0].received).toBeGreaterThan(0);
    expect(tookMs).toBeLessThan(BOUND_MS);
  });

  it.concurrent('counts the MX hosts’ address lookups in the same budget as the MX query', async () => {
    // The MX answer comes from the second server, once the first has timed out; then neither answers for the hosts.
    const resolver = new MxResolver([silent[4].address, dns.address], DNS_TIMEOUT_MS);
    const { route, tookMs } = await timed(resolver.route('hanging-hosts.test'));
    expect(route).toMatchObject({ kind: 'unroutable', outcome: { kind: 'temporary', code: null } });
    expect(route.kind === 'unroutable' && route.outcome.reply).toMatch(/^4\.4\.3 DNS lookup for mx[12]\.hanging-hosts\.test failed \(ETIMEOUT\)$/);
    expect(tookMs).toBeLessThan(BOUND_MS);
  });

  it.concurrent('still finds the mail hosts through the second server when the first is dead', async () => {
    const resolver = new MxResolver([silent[5].address, dns.address], DNS_TIMEOUT_MS);
    const { route, tookMs } = await timed(resolver.route('reachable.test'));
    expect(route).toEqual({ kind: 'hosts', hosts: [{ name: 'mx.reachable.test', preference: 10, addresses: ['93.184.216.34'] }], ttlSeconds: 0 });
    expect(silent[5].received).toBeGreaterThan(0);
    expect(tookMs).toBeLessThan(BOUND_MS);
  });

  it.concurrent('delivers to the MX hosts that were found when the deadline cuts another host’s lookup short', async () => {
    const resolver = new MxResolver([dns.address], DNS_TIMEOUT_MS);
    const { route, tookMs } = await timed(resolver.route('half-hanging.test'));
    expect(route).toEqual({ kind: 'hosts', hosts: [{ name: 'mx2.half-hanging.test', preference: 20, addresses: ['93.184.216.35'] }], ttlSeconds: 0 });
    expect(tookMs).toBeLessThan(BOUND_MS);
  });
});
