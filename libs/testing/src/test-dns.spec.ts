import { Resolver } from 'node:dns/promises';
import { splitTxtValue, startTestDns, TestDns } from './test-dns';

describe('startTestDns', () => {
  let dns: TestDns;
  let resolver: Resolver;
  /** A resolver asking only the test server, once, waiting at most `timeout` ms. */
  const resolverWaiting = (timeout: number): Resolver => {
    const made = new Resolver({ timeout, tries: 1 });
    made.setServers([dns.address]);
    return made;
  };

  beforeAll(async () => {
    dns = await startTestDns();
  });
  afterAll(() => dns.stop());
  beforeEach(() => {
    dns.clear();
    // Generous: under a full CI run's load an answer can take longer than a few hundred ms to come back.
    resolver = resolverWaiting(5000);
  });

  it('answers TXT, A, MX and CNAME records it was given', async () => {
    dns.set('example.com', 'TXT', ['v=spf1 -all', 'other']);
    dns.set('example.com', 'MX', [{ exchange: 'mx.example.com', priority: 10 }]);
    dns.set('mx.example.com', 'A', '127.0.0.1');
    dns.set('sel._domainkey.example.com', 'CNAME', 'x.dkim.zone');
    expect((await resolver.resolveTxt('example.com')).map((parts) => parts.join(''))).toEqual(['v=spf1 -all', 'other']);
    expect(await resolver.resolveMx('example.com')).toEqual([{ exchange: 'mx.example.com', priority: 10 }]);
    expect(await resolver.resolve4('mx.example.com')).toEqual(['127.0.0.1']);
    expect(await resolver.resolveCname('sel._domainkey.EXAMPLE.com.')).toEqual(['x.dkim.zone']);
  });

  it('splits TXT values longer than 255 bytes into several character-strings', async () => {
    const long = 'v=DKIM1; k=rsa; p=' + 'A'.repeat(400);
    dns.set('long.example.com', 'TXT', long);
    const [record] = await resolver.resolveTxt('long.example.com');
    expect(record.length).toBe(2);
    expect(record.join('')).toBe(long);
    expect(splitTxtValue('x'.repeat(511)).map((part) => part.length)).toEqual([255, 255, 1]);
  });

  it('answers NXDOMAIN for unknown names and NODATA for a missing type', async () => {
    dns.set('a.example.com', 'A', '127.0.0.2');
    await expect(resolver.resolveTxt('nothing.example.com')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolveTxt('a.example.com')).rejects.toMatchObject({ code: 'ENODATA' });
  });

  it('follows a CNAME to the target records', async () => {
    dns.set('alias.example.com', 'CNAME', 'target.example.com');
    dns.set('target.example.com', 'TXT', 'hello');
    expect(await resolver.resolveTxt('alias.example.com')).toEqual([['hello']]);
  });

  it('fails with SERVFAIL or a timeout when told to', async () => {
    dns.servfail('broken.example.com');
    dns.delay('slow.example.com', Infinity);
    await expect(resolver.resolveTxt('broken.example.com')).rejects.toMatchObject({ code: 'ESERVFAIL' });
    // Only the lookup that is meant to time out gets a short timeout.
    await expect(resolverWaiting(300).resolveTxt('slow.example.com')).rejects.toMatchObject({ code: 'ETIMEOUT' });
  });

  it('forwards a zone to another DNS server, also at the end of a CNAME chain', async () => {
    const upstream = await startTestDns();
    try {
      upstream.set('sel.zone.test', 'TXT', 'from upstream');
      dns.forward('zone.test', upstream.address);
      dns.set('sel._domainkey.example.com', 'CNAME', 'sel.zone.test');
      expect(await resolver.resolveTxt('sel._domainkey.example.com')).toEqual([['from upstream']]);
      expect(upstream.queries).toContainEqual({ name: 'sel.zone.test', type: 'TXT' });
    } finally {
      await upstream.stop();
    }
  });
});
