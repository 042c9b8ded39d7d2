import { startTestDns, TestDns } from '@mailroom/testing';
import { MxResolver } from '../src/delivery/mx/mx-resolver';
import { MxRouteCache } from '../src/delivery/mx/mx-route-cache';

const DNS_TIMEOUT_MS = 2000;

/**
 * A route found while part of the DNS failed is used, but never reused: the
 * README promises DNS failures are never cached, and a route cut short by one
 * (a host whose lookup failed, an address family that failed) would otherwise
 * keep the mail off the missing hosts for up to five minutes. Real c-ares
 * against a DNS server on loopback.
 */
describe('MX routes found while part of the DNS failed', () => {
  let dns: TestDns;
  beforeAll(async () => {
    dns = await startTestDns();
    dns.set('v6-broken.test', 'MX', [{ exchange: 'mx.v6-broken.test', priority: 10 }]);
    dns.set('mx.v6-broken.test', 'A', '93.184.216.34');
    dns.servfail('mx.v6-broken.test', 'AAAA');
    dns.ttl('mx.v6-broken.test', 300);
    dns.set('one-host-broken.test', 'MX', [
      { exchange: 'mx1.one-host-broken.test', priority: 10 },
      { exchange: 'mx2.one-host-broken.test', priority: 20 },
    ]);
    dns.servfail('mx1.one-host-broken.test');
    dns.set('mx2.one-host-broken.test', 'A', '93.184.216.35');
    dns.ttl('mx2.one-host-broken.test', 300);
    dns.set('healthy.test', 'MX', [{ exchange: 'mx.healthy.test', priority: 10 }]);
    dns.set('mx.healthy.test', 'A', '93.184.216.36');
    dns.ttl('mx.healthy.test', 300);
    dns.set('ghost-hosts.test', 'MX', [
      { exchange: 'mx1.ghost-hosts.test', priority: 10 },
      { exchange: 'mx2.ghost-hosts.test', priority: 20 },
    ]);
    dns.set('ghost-and-broken.test', 'MX', [
      { exchange: 'mx1.ghost-and-broken.test', priority: 10 },
      { exchange: 'mx2.ghost-and-broken.test', priority: 20 },
    ]);
    dns.servfail('mx2.ghost-and-broken.test');
  });
  afterAll(async () => {
    await dns?.stop();
  });

  const resolver = () => new MxResolver([dns.address], DNS_TIMEOUT_MS);

  it('delivers to a host over the address family that answered when the other fails, as Postfix does', async () => {
    expect(await resolver().route('v6-broken.test')).toEqual({
      kind: 'hosts',
      hosts: [{ name: 'mx.v6-broken.test', preference: 10, addresses: ['93.184.216.34'] }],
      ttlSeconds: 0,
    });
  });

  it('gives a route missing a host whose lookup failed no lifetime, so the cache asks again next time', async () => {
    expect(await resolver().route('one-host-broken.test')).toEqual({
      kind: 'hosts',
      hosts: [{ name: 'mx2.one-host-broken.test', preference: 20, addresses: ['93.184.216.35'] }],
      ttlSeconds: 0,
    });
  });

  it('reuses a whole route for its TTL and looks a partial one up again', async () => {
    const cache = new MxRouteCache(resolver());
    const asked = (name: string) => dns.queries.filter((query) => query.name === name && query.type === 'MX').length;
    for (const domain of ['healthy.test', 'one-host-broken.test']) {
      const before = asked(domain);
      await cache.route(domain);
      await cache.route(domain);
      expect({ domain, lookups: asked(domain) - before }).toEqual({ domain, lookups: domain === 'healthy.test' ? 1 : 2 });
    }
  });

  // As Exim's "all relevant MX records point to non-existent hosts": the DNS answered, and said there is nowhere to
  // deliver. Retried, such mail waited out the whole retry schedule (three days) for the same answer.
  it('bounces at once when no MX host of a domain has an address (each does not exist, NXDOMAIN, or has no A or AAAA record)', async () => {
    expect(await resolver().route('ghost-hosts.test')).toEqual({
      kind: 'unroutable',
      outcome: { kind: 'permanent', code: 550, reply: '550 5.4.4 no MX host of ghost-hosts.test has an address record' },
    });
  });

  it('waits for a retry when a host that does not exist is beside one whose lookup failed', async () => {
    const route = await resolver().route('ghost-and-broken.test');
    expect(route).toEqual({ kind: 'unroutable', outcome: { kind: 'temporary', code: null, reply: expect.stringMatching(/^4\.4\.3 DNS lookup for mx2\.ghost-and-broken\.test failed/) } });
  });
});
