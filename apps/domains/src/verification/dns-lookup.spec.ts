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
    const results = [await dns.txt('a.example.com'), await dns.cname('b.example.com'), await dns.txt('c.example.com')];
    const elapsed = Date.now() - started;
    expect(results).toEqual([{ kind: 'error', error: 'timeout' }, { kind: 'error', error: 'timeout' }, { kind: 'error', error: 'timeout' }]);
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 20);
    // Three lookups of their own would take three timeouts; what is left after the first is nothing.
    expect(elapsed).toBeLessThan(timeoutMs * 2);
  });
});
