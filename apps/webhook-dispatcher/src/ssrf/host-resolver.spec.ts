import { DnsTimeoutError } from '@mailroom/runtime';
import { AddressQueries, HostResolver, RESOLUTION_DELAY_MS } from './host-resolver';

type Answer = string[] | NodeJS.ErrnoException | 'never';

/** Queries that answer as told: addresses, an error, or never (a black-holed name). */
function queries(v4: Answer, v6: Answer): AddressQueries & { asked: string[] } {
  const asked: string[] = [];
  const answer = (kind: string, value: Answer) => (hostname: string) => {
    asked.push(`${kind} ${hostname}`);
    if (value === 'never') return new Promise<string[]>(() => undefined);
    return value instanceof Error ? Promise.reject(value) : Promise.resolve(value);
  };
  return { asked, resolve4: answer('A', v4), resolve6: answer('AAAA', v6) };
}

const dnsError = (code: string) => Object.assign(new Error(`query ${code}`), { code });

describe(HostResolver.name, () => {
  afterEach(() => jest.useRealTimers());

  it('asks A and AAAA at once and gives every address, IPv4 first', async () => {
    const fake = queries(['93.184.216.34'], ['2606:2800:220:1::1']);
    await expect(new HostResolver(() => fake, 1_000).addresses('hooks.example.com', 0)).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    expect(fake.asked).toEqual(['A hooks.example.com', 'AAAA hooks.example.com']);
  });

  it('asks only the family the connection wants', async () => {
    const fake = queries(['93.184.216.34'], ['2606:2800:220:1::1']);
    await expect(new HostResolver(() => fake, 1_000).addresses('hooks.example.com', 6)).resolves.toEqual([{ address: '2606:2800:220:1::1', family: 6 }]);
    expect(fake.asked).toEqual(['AAAA hooks.example.com']);
  });

  it('uses the family that has addresses when the other has none', async () => {
    const fake = queries(dnsError('ENODATA'), ['2606:2800:220:1::1']);
    await expect(new HostResolver(() => fake, 1_000).addresses('v6only.example.com', 0)).resolves.toEqual([{ address: '2606:2800:220:1::1', family: 6 }]);
  });

  it('fails with the timeout, naming the host and the budget, when no query is ever answered', async () => {
    jest.useFakeTimers();
    const lookup = new HostResolver(() => queries('never', 'never'), 2_000).addresses('blackhole.example.com', 0);
    const settled = expect(lookup).rejects.toThrow(new DnsTimeoutError('blackhole.example.com', 2_000));
    await jest.advanceTimersByTimeAsync(1_999);
    let done = false;
    void lookup.catch(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await settled;
    await expect(lookup).rejects.toThrow('DNS lookup of blackhole.example.com timed out after 2000 ms');
  });

  it("reports c-ares's own timeout as the same timeout", async () => {
    await expect(new HostResolver(() => queries(dnsError('ETIMEOUT'), dnsError('ETIMEOUT')), 1_000).addresses('slow.example.com', 0)).rejects.toBeInstanceOf(DnsTimeoutError);
  });

  it('goes ahead with IPv4 a resolution delay after it, when AAAA is never answered', async () => {
    jest.useFakeTimers();
    const lookup = new HostResolver(() => queries(['93.184.216.34'], 'never'), 10_000).addresses('broken-aaaa.example.com', 0);
    let found: unknown;
    void lookup.then((addresses) => (found = addresses));
    await jest.advanceTimersByTimeAsync(RESOLUTION_DELAY_MS - 1);
    expect(found).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1);
    expect(found).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('cancels the queries still in flight once the lookup is over, at its deadline or a resolution delay after an answer', async () => {
    jest.useFakeTimers();
    const cancelled: string[] = [];
    const cancellable = (v4: Answer, v6: Answer, name: string) => () => Object.assign(queries(v4, v6), { cancel: () => cancelled.push(name) });
    const timedOut = new HostResolver(cancellable('never', 'never', 'blackhole'), 1_000).addresses('blackhole.example.com', 0);
    const settled = expect(timedOut).rejects.toBeInstanceOf(DnsTimeoutError);
    await jest.advanceTimersByTimeAsync(1_000);
    await settled;
    const answered = new HostResolver(cancellable(['93.184.216.34'], 'never', 'broken-aaaa'), 1_000).addresses('broken-aaaa.example.com', 0);
    await jest.advanceTimersByTimeAsync(RESOLUTION_DELAY_MS);
    await expect(answered).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(cancelled).toEqual(['blackhole', 'broken-aaaa']);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('says a name with no address was not found, and a failing server failed', async () => {
    await expect(new HostResolver(() => queries(dnsError('ENOTFOUND'), dnsError('ENOTFOUND')), 1_000).addresses('nx.example.com', 0)).rejects.toMatchObject({
      code: 'ENOTFOUND',
      message: 'DNS lookup of nx.example.com found no address (ENOTFOUND)',
    });
    await expect(new HostResolver(() => queries(dnsError('ENODATA'), dnsError('ESERVFAIL')), 1_000).addresses('broken.example.com', 0)).rejects.toMatchObject({
      code: 'ESERVFAIL',
      message: 'DNS lookup of broken.example.com failed (ESERVFAIL)',
    });
  });
});
