import { deferred } from '@mailroom/testing';
import { LeasedClaimLoop, LeasedClaimLoopOptions } from './leased-claim-loop';

const POLL_MS = 100;
const LEASE_MS = 3_000;

describe(LeasedClaimLoop.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const loopWith = (claims: Array<boolean | undefined | Error | Promise<boolean | undefined>>, held: string[] = []) => {
    const logger = { error: jest.fn(), warn: jest.fn(), log: jest.fn() };
    const claim = jest.fn(async () => {
      const next = claims.length ? claims.shift() : false;
      if (next instanceof Error) throw next;
      return next;
    });
    const renew = jest.fn(async () => undefined);
    const options: LeasedClaimLoopOptions = { logger, claiming: 'due things', pollMs: POLL_MS, leaseMs: LEASE_MS, claim, held: () => held, renew };
    return { loop: new LeasedClaimLoop(options), claim, renew, logger };
  };

  it('claims at once on start, again at once while claims fill their room, then every pollMs', async () => {
    const { loop, claim } = loopWith([true, true, false]);
    loop.start();
    // Each poll schedules the next on a zero-delay timer, which the fake clock runs a millisecond on: 3 within 10 ms.
    await jest.advanceTimersByTimeAsync(10);
    expect(claim).toHaveBeenCalledTimes(3);
    await jest.advanceTimersByTimeAsync(POLL_MS - 20);
    expect(claim).toHaveBeenCalledTimes(3);
    await jest.advanceTimersByTimeAsync(20);
    expect(claim).toHaveBeenCalledTimes(4);
    await loop.stopPolling();
    loop.stopRenewing();
  });

  it('claims under an owner unique to the loop', async () => {
    const { loop, claim } = loopWith([]);
    loop.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(claim).toHaveBeenCalledWith(loop.owner);
    expect(loop.owner).not.toBe(loopWith([]).loop.owner);
    await loop.stopPolling();
    loop.stopRenewing();
  });

  it('wakeIfIdle polls at once when idle, but leaves a poll under way to wait its interval after', async () => {
    const running = deferred<boolean>();
    const { loop, claim } = loopWith([running.promise, false, false]);
    loop.start();
    await jest.advanceTimersByTimeAsync(0);
    loop.wakeIfIdle();
    running.resolve(false);
    await jest.advanceTimersByTimeAsync(POLL_MS - 1);
    expect(claim).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(claim).toHaveBeenCalledTimes(2);
    loop.wakeIfIdle();
    await jest.advanceTimersByTimeAsync(0);
    expect(claim).toHaveBeenCalledTimes(3);
    await loop.stopPolling();
    loop.stopRenewing();
  });

  it('wake during a poll runs another as soon as it ends', async () => {
    const running = deferred<boolean>();
    const { loop, claim } = loopWith([running.promise, false]);
    loop.start();
    await jest.advanceTimersByTimeAsync(0);
    loop.wake();
    running.resolve(false);
    await jest.advanceTimersByTimeAsync(0);
    expect(claim).toHaveBeenCalledTimes(2);
    await loop.stopPolling();
    loop.stopRenewing();
  });

  it('logs a failing claim, and its recovery only once a claim has asked the database again (not on a round with no room)', async () => {
    const { loop, logger } = loopWith([new Error('relation "x" does not exist'), undefined, false]);
    loop.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(logger.error).toHaveBeenCalledWith(expect.objectContaining({ err: 'relation "x" does not exist' }), 'claiming due things failed');
    await jest.advanceTimersByTimeAsync(POLL_MS);
    expect(logger.log).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(POLL_MS);
    expect(logger.log).toHaveBeenCalledWith(expect.anything(), 'claiming due things works again');
    await loop.stopPolling();
    loop.stopRenewing();
  });

  it('stopPolling waits for the claim under way and starts no other; leases are renewed until stopRenewing', async () => {
    const running = deferred<boolean>();
    const { loop, claim, renew, logger } = loopWith([running.promise], ['a', 'b']);
    loop.start();
    await jest.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = loop.stopPolling().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    expect(loop.running).toBe(false);
    running.resolve(true);
    await stopping;
    loop.wake();
    loop.wakeIfIdle();
    await jest.advanceTimersByTimeAsync(POLL_MS * 10);
    expect(claim).toHaveBeenCalledTimes(1);

    // Renewed every third of the lease with what is held, still after polling stopped.
    expect(renew).toHaveBeenCalledWith(loop.owner, ['a', 'b'], LEASE_MS);
    const renewals = renew.mock.calls.length;
    expect(renewals).toBe(Math.floor((POLL_MS * 10) / (LEASE_MS / 3)));
    renew.mockRejectedValueOnce(new Error('connection terminated'));
    await jest.advanceTimersByTimeAsync(LEASE_MS / 3);
    expect(logger.warn).toHaveBeenCalledWith({ err: 'connection terminated' }, 'renewing the leases on due things failed');
    loop.stopRenewing();
    await jest.advanceTimersByTimeAsync(LEASE_MS);
    expect(renew).toHaveBeenCalledTimes(renewals + 1);
  });

  it('renews nothing while it holds nothing', async () => {
    const { loop, renew } = loopWith([], []);
    loop.start();
    await jest.advanceTimersByTimeAsync(LEASE_MS);
    expect(renew).not.toHaveBeenCalled();
    await loop.stopPolling();
    loop.stopRenewing();
  });
});
