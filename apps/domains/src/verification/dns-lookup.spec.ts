import { createSocket, Socket } from 'node:dgram';
import { DnsLookup } from './dns-lookup';

describe(DnsLookup.name, () => {
  let silent: Socket;
  let server: string;
  beforeAll(async () => {
    // A DNS server that never answers: every lookup runs into its timeout.
    silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', () => resolve()));
    server = `127.0.0.1:${silent.address().port}`;
  });
  afterAll(() => silent.close());

  it('gives a chain of lookups one timeout between them, not one each', async () => {
    const timeoutMs = 300;
    const dns = new DnsLookup([server], timeoutMs);
    const started = Date.now();
    const results = [await dns.txt('a.example.com')];
    const firstDone = Date.now();
    results.push(await dns.cname('b.example.com'), await dns.txt('c.example.com'));
    expect(results).toEqual([{ kind: 'error', error: 'timeout' }, { kind: 'error', error: 'timeout' }, { kind: 'error', error: 'timeout' }]);
    expect(firstDone - started).toBeGreaterThanOrEqual(timeoutMs - 20);
    // Lookups of their own would take a timeout each; what is left after the first is nothing. Timed apart from
    // the first, so a pause of a loaded machine during that one's 300 ms cannot count against the other two.
    expect(Date.now() - firstDone).toBeLessThan(timeoutMs);
  });
});
