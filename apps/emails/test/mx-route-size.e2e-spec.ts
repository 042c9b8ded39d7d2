import { startTestDns, TestDns } from '@mailroom/testing';
import { MAX_ROUTE_ADDRESSES, MailRoute, MxResolver } from '../src/delivery/mx/mx-resolver';

const DNS_TIMEOUT_MS = 5000;
const LISTED = 3 * MAX_ROUTE_ADDRESSES;

/** A public address per index, as the DNS of a recipient domain may list them (refusedAddressReason lets them through). */
const address = (index: number) => `93.184.${Math.floor(index / 250)}.${(index % 250) + 1}`;

const addressesOf = (route: MailRoute) => (route.kind === 'hosts' ? route.hosts.flatMap((host) => host.addresses) : []);

/**
 * A recipient domain's DNS is anyone's to write, down to MX records by the
 * hundred, or one host with hundreds of addresses. What a route holds, and the
 * lookups made to find it, stay bounded however many are listed: each address
 * is a connection pool to try and a cached route's memory (MxRouteCache keeps
 * 10,000 of them). Real c-ares against a DNS server on loopback.
 */
describe('MX routes of domains listing more mail hosts than are ever tried', () => {
  let dns: TestDns;
  beforeAll(async () => {
    dns = await startTestDns();
    dns.set(
      'many-hosts.test',
      'MX',
      Array.from({ length: LISTED }, (_, index) => ({ exchange: `mx${index}.many-hosts.test`, priority: index })),
    );
    for (let index = 0; index < LISTED; index++) dns.set(`mx${index}.many-hosts.test`, 'A', address(index));
    dns.set('many-addresses.test', 'MX', [{ exchange: 'mx.many-addresses.test', priority: 10 }]);
    dns.set('mx.many-addresses.test', 'A', Array.from({ length: LISTED }, (_, index) => address(index)));
  });
  afterAll(async () => {
    await dns?.stop();
  });

  const resolver = () => new MxResolver([dns.address], DNS_TIMEOUT_MS);

  it('looks up and keeps only the most preferred hosts of a domain with hundreds of MX records', async () => {
    const route = await resolver().route('many-hosts.test');
    const hostLookups = dns.queries.filter((query) => query.name.endsWith('.many-hosts.test')).length;
    expect(route.kind === 'hosts' && route.hosts.map((host) => host.name)).toEqual(Array.from({ length: MAX_ROUTE_ADDRESSES }, (_, index) => `mx${index}.many-hosts.test`));
    // An A and an AAAA query per host looked up, and no more.
    expect(hostLookups).toBe(2 * MAX_ROUTE_ADDRESSES);
  });

  it('keeps at most MAX_ROUTE_ADDRESSES addresses of a host listing hundreds', async () => {
    const route = await resolver().route('many-addresses.test');
    expect(route.kind).toBe('hosts');
    expect(addressesOf(route)).toHaveLength(MAX_ROUTE_ADDRESSES);
  });
});
