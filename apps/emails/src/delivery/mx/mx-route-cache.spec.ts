import { MailRoute } from './mx-resolver';
import { LONGEST_ROUTE_TTL_SECONDS, MxRouteCache } from './mx-route-cache';

const hosts = (ttlSeconds: number, address = '192.0.2.1'): MailRoute => ({
  kind: 'hosts',
  hosts: [{ name: 'mx.example.com', preference: 10, addresses: [address] }],
  ttlSeconds,
});

function setup(answer: (domain: string) => MailRoute) {
  let now = 1_000_000;
  const resolver = { route: jest.fn(async (domain: string) => answer(domain)) };
  const cache = new MxRouteCache(resolver, () => now);
  return { resolver, cache, advance: (ms: number) => (now += ms) };
}

describe(MxRouteCache.name, () => {
  it('asks once for lookups of one domain that run at the same time', async () => {
    const { resolver, cache } = setup(() => hosts(0));
    const routes = await Promise.all(Array.from({ length: 10 }, () => cache.route('example.com')));
    expect(resolver.route).toHaveBeenCalledTimes(1);
    expect(new Set(routes).size).toBe(1);
  });

  it('reuses a route for its TTL, then looks the domain up again', async () => {
    let address = '192.0.2.1';
    const { resolver, cache, advance } = setup(() => hosts(60, address));
    await cache.route('example.com');
    advance(59_000);
    address = '192.0.2.2';
    expect(await cache.route('example.com')).toEqual(hosts(60, '192.0.2.1'));
    advance(1_000);
    expect(await cache.route('example.com')).toEqual(hosts(60, '192.0.2.2'));
    expect(resolver.route).toHaveBeenCalledTimes(2);
  });

  it('looks the domain up every time when the records say not to cache (TTL 0)', async () => {
    const { resolver, cache } = setup(() => hosts(0));
    await cache.route('example.com');
    await cache.route('example.com');
    expect(resolver.route).toHaveBeenCalledTimes(2);
  });

  it(`keeps no route longer than ${LONGEST_ROUTE_TTL_SECONDS} s, whatever its TTL`, async () => {
    const { resolver, cache, advance } = setup(() => hosts(86_400));
    await cache.route('example.com');
    advance(LONGEST_ROUTE_TTL_SECONDS * 1000 - 1);
    await cache.route('example.com');
    expect(resolver.route).toHaveBeenCalledTimes(1);
    advance(1);
    await cache.route('example.com');
    expect(resolver.route).toHaveBeenCalledTimes(2);
  });

  it('does not keep DNS failures or domains that take no mail', async () => {
    const unroutable: MailRoute = { kind: 'unroutable', outcome: { kind: 'temporary', code: null, reply: '4.4.3 DNS lookup failed' } };
    const { resolver, cache } = setup(() => unroutable);
    await cache.route('example.com');
    await cache.route('example.com');
    expect(resolver.route).toHaveBeenCalledTimes(2);
  });

  it('keeps domains apart', async () => {
    const { resolver, cache } = setup((domain) => hosts(60, domain === 'a.example' ? '192.0.2.1' : '192.0.2.2'));
    expect(await cache.route('a.example')).toEqual(hosts(60, '192.0.2.1'));
    expect(await cache.route('b.example')).toEqual(hosts(60, '192.0.2.2'));
    expect(resolver.route).toHaveBeenCalledTimes(2);
  });
});
