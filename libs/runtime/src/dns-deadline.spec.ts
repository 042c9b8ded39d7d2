import { DnsDeadline, DnsTimeoutError } from './dns-deadline';

const never = () => new Promise<string[]>(() => undefined);

describe(DnsDeadline.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('fails every query still unanswered at the budget, naming each, and cancels the channel', async () => {
    const channel = { cancel: jest.fn() };
    const deadline = new DnsDeadline(channel, 1_000);
    const mx = deadline.within('example.test', never());
    const host = deadline.within('mx.example.test', never());
    const both = Promise.allSettled([mx, host]);
    await jest.advanceTimersByTimeAsync(999);
    expect(channel.cancel).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(await both).toEqual([
      { status: 'rejected', reason: new DnsTimeoutError('example.test', 1_000) },
      { status: 'rejected', reason: new DnsTimeoutError('mx.example.test', 1_000) },
    ]);
    expect(channel.cancel).toHaveBeenCalledTimes(1);
    // A query asked after the budget is spent fails at once.
    await expect(deadline.within('late.example.test', never())).rejects.toThrow('DNS lookup of late.example.test timed out after 1000 ms');
  });

  it('passes answers and other failures through, and reports c-ares’s own timeout as the same timeout', async () => {
    const deadline = new DnsDeadline({}, 1_000);
    await expect(deadline.within('a.test', Promise.resolve(['192.0.2.1']))).resolves.toEqual(['192.0.2.1']);
    await expect(deadline.within('b.test', Promise.reject(Object.assign(new Error('queryA ESERVFAIL'), { code: 'ESERVFAIL' })))).rejects.toMatchObject({ code: 'ESERVFAIL' });
    await jest.advanceTimersByTimeAsync(300);
    const caresTimeout = Promise.reject(Object.assign(new Error('queryA ETIMEOUT'), { code: 'ETIMEOUT' }));
    await expect(deadline.within('c.test', caresTimeout)).rejects.toThrow(new DnsTimeoutError('c.test', 300));
    deadline.end();
  });

  it('handles the failure of a query asked after the budget was spent, which would otherwise be an unhandled rejection and end the process', async () => {
    const deadline = new DnsDeadline({ cancel: () => undefined }, 1_000);
    await jest.advanceTimersByTimeAsync(1_000);
    // Real timers from here: Node reports an unhandled rejection once the turn that rejected it is over.
    jest.useRealTimers();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const late = Promise.reject(Object.assign(new Error('queryA ETIMEOUT late.test'), { code: 'ETIMEOUT' }));
      await expect(deadline.within('late.test', late)).rejects.toThrow(new DnsTimeoutError('late.test', 1_000));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('stops the clock and cancels the channel once, when the lookup ends before the budget', async () => {
    const channel = { cancel: jest.fn() };
    const deadline = new DnsDeadline(channel, 1_000);
    deadline.end();
    deadline.end();
    expect(channel.cancel).toHaveBeenCalledTimes(1);
    expect(jest.getTimerCount()).toBe(0);
  });
});
