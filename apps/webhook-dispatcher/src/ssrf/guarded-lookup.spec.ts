import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { RefusedAddressError, resolvingLookup } from './guarded-lookup';
import { HostResolver } from './host-resolver';

function resolverAnswering(addresses: LookupAddress[] | Error): HostResolver & { addresses: jest.Mock } {
  return { addresses: jest.fn(async () => (addresses instanceof Error ? Promise.reject(addresses) : addresses)) } as unknown as HostResolver & { addresses: jest.Mock };
}

/** Calls the lookup as Node's net does, and gives what its callback got. */
function call(lookup: LookupFunction, hostname: string, options: { all?: boolean; family?: number }): Promise<{ error: Error | null; result: unknown; family?: number }> {
  return new Promise((resolve) => {
    (lookup as (h: string, o: object, c: (e: Error | null, r: unknown, f?: number) => void) => void)(hostname, options, (error, result, family) =>
      resolve({ error, result, family }),
    );
  });
}

const PUBLIC = [
  { address: '93.184.216.34', family: 4 },
  { address: '2606:2800:220:1::1', family: 6 },
];

describe(resolvingLookup.name, () => {
  it('gives every address when asked for all (Node connecting with autoSelectFamily), the first otherwise', async () => {
    const lookup = resolvingLookup(resolverAnswering(PUBLIC), true);
    expect(await call(lookup, 'hooks.example.com', { all: true })).toEqual({ error: null, result: PUBLIC, family: undefined });
    expect(await call(lookup, 'hooks.example.com', {})).toEqual({ error: null, result: '93.184.216.34', family: 4 });
  });

  it('passes the family asked for to the resolver', async () => {
    const resolver = resolverAnswering(PUBLIC);
    await call(resolvingLookup(resolver, true), 'hooks.example.com', { family: 6 });
    await call(resolvingLookup(resolver, true), 'hooks.example.com', { family: 0 });
    expect(resolver.addresses.mock.calls).toEqual([
      ['hooks.example.com', 6],
      ['hooks.example.com', 0],
    ]);
  });

  it('with the guard, refuses a host when any of its addresses is refused, naming the kind and not the address', async () => {
    const { error } = await call(resolvingLookup(resolverAnswering([PUBLIC[0], { address: '10.1.2.3', family: 4 }]), true), 'rebind.example.com', { all: true });
    expect(error).toBeInstanceOf(RefusedAddressError);
    expect(error?.message).toBe('refused to connect to rebind.example.com: it resolves to a private address');
  });

  it('without the guard, gives private addresses as they are', async () => {
    const local = [{ address: '127.0.0.1', family: 4 }];
    expect(await call(resolvingLookup(resolverAnswering(local), false), 'receiver.test', { all: true })).toEqual({ error: null, result: local, family: undefined });
  });

  it("passes the resolver's error on, so the attempt log says what DNS did", async () => {
    const timeout = Object.assign(new Error('DNS lookup of blackhole.example.com timed out after 2000 ms'), { code: 'ETIMEOUT' });
    expect((await call(resolvingLookup(resolverAnswering(timeout), true), 'blackhole.example.com', { all: true })).error).toBe(timeout);
  });
});
