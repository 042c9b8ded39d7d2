import { domainsTimeoutMs } from './sender-identity.client';

describe(domainsTimeoutMs.name, () => {
  it('waits 2 s for the domains service at the default RPC_TIMEOUT_MS (5 s)', () => {
    expect(domainsTimeoutMs(5_000)).toBe(2_000);
    expect(domainsTimeoutMs(60_000)).toBe(2_000);
  });

  it('leaves the send half of a shorter RPC_TIMEOUT_MS, so the gateway never gives up on a send that is then stored', () => {
    for (const rpcTimeout of [50, 1_000, 3_000]) expect(domainsTimeoutMs(rpcTimeout)).toBeLessThanOrEqual(rpcTimeout / 2);
  });
});
