import type { MailroomConfig } from '@mailroom/config';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { SharedAuthFailures } from './shared-auth-failures';

const MINUTE = 60_000;

describe(AuthFailureLimiter.name, () => {
  it('blocks an address once it has failed `limit` times within a window, until that window ends', () => {
    const limiter = new AuthFailureLimiter(3, MINUTE, 100);
    limiter.recordFailure('203.0.113.1', 1_000);
    limiter.recordFailure('203.0.113.1', 2_000);
    expect(limiter.retryAfterMs('203.0.113.1', 2_000)).toBe(0);
    limiter.recordFailure('203.0.113.1', 3_000);
    expect(limiter.retryAfterMs('203.0.113.1', 3_000)).toBe(58_000);
    expect(limiter.retryAfterMs('203.0.113.1', 60_999)).toBe(1);
    expect(limiter.retryAfterMs('203.0.113.1', 61_000)).toBe(0);
  });

  it('starts a new window with the first failure after the last one ended', () => {
    const limiter = new AuthFailureLimiter(2, MINUTE, 100);
    limiter.recordFailure('203.0.113.1', 0);
    limiter.recordFailure('203.0.113.1', 60_000);
    expect(limiter.retryAfterMs('203.0.113.1', 60_000)).toBe(0);
    limiter.recordFailure('203.0.113.1', 70_000);
    expect(limiter.retryAfterMs('203.0.113.1', 70_000)).toBe(50_000);
  });

  it('counts each address on its own', () => {
    const limiter = new AuthFailureLimiter(1, MINUTE, 100);
    limiter.recordFailure('203.0.113.1', 0);
    expect(limiter.retryAfterMs('203.0.113.1', 0)).toBeGreaterThan(0);
    expect(limiter.retryAfterMs('203.0.113.2', 0)).toBe(0);
  });

  it('holds at most maxClients addresses, forgetting ended windows first and then the oldest', () => {
    const limiter = new AuthFailureLimiter(1, MINUTE, 2);
    limiter.recordFailure('203.0.113.1', 0);
    limiter.recordFailure('203.0.113.2', 10_000);
    limiter.recordFailure('203.0.113.3', 20_000);
    expect(limiter.size).toBe(2);
    expect(['203.0.113.1', '203.0.113.2', '203.0.113.3'].map((address) => limiter.retryAfterMs(address, 20_000) > 0)).toEqual([false, true, true]);
    limiter.recordFailure('203.0.113.4', 75_000);
    expect(limiter.size).toBe(2);
    expect(['203.0.113.3', '203.0.113.4'].map((address) => limiter.retryAfterMs(address, 75_000) > 0)).toEqual([true, true]);
  });

  it('keeps a blocked address blocked however many other addresses fail once each, and stays within maxClients', () => {
    const limiter = new AuthFailureLimiter(3, MINUTE, 100);
    for (let failure = 0; failure < 3; failure += 1) limiter.recordFailure('203.0.113.1', 0);
    for (let index = 0; index < 100_000; index += 1) limiter.recordFailure(`2001:db8:${(index >> 16).toString(16)}:${(index & 0xffff).toString(16)}::1`, 1_000);
    expect(limiter.size).toBeLessThanOrEqual(100);
    expect(limiter.retryAfterMs('203.0.113.1', 1_000)).toBe(59_000);
    // The newest of the addresses still counting are remembered: their count goes on.
    limiter.recordFailure('2001:db8:1:869f::1', 1_000);
    limiter.recordFailure('2001:db8:1:869f::1', 1_000);
    expect(limiter.retryAfterMs('2001:db8:1:869f::1', 1_000)).toBe(60_000);
  });

  it('never blocks when the limit is 0 (switched off), and remembers nothing', () => {
    const limiter = new AuthFailureLimiter(0, MINUTE, 100);
    for (let index = 0; index < 50; index += 1) limiter.recordFailure('203.0.113.1', index);
    expect(limiter.retryAfterMs('203.0.113.1', 50)).toBe(0);
    expect(limiter.size).toBe(0);
  });

  it('counts an IPv4 client as one whether it arrives as a.b.c.d or ::ffff:a.b.c.d', () => {
    const limiter = new AuthFailureLimiter(2, MINUTE, 100);
    limiter.recordFailure('::ffff:203.0.113.1', 0);
    limiter.recordFailure('203.0.113.1', 0);
    expect(limiter.retryAfterMs('203.0.113.1', 0)).toBeGreaterThan(0);
    expect(limiter.retryAfterMs('::ffff:cb00:7101', 0)).toBeGreaterThan(0);
  });

  describe('on the clocks the gateway gives it', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('ends a block when its minute is over, even when the wall clock was set back meanwhile (NTP stepping it)', () => {
      const limiter = new AuthFailureLimiter(2, MINUTE, 100);
      // Not connected to NATS: it counts the failures here only.
      const failures = new SharedAuthFailures(limiter, { AUTH_FAILURE_LIMIT: 2 } as MailroomConfig);
      failures.recordFailure('203.0.113.1');
      failures.recordFailure('203.0.113.1');
      expect(limiter.retryAfterMs('203.0.113.1')).toBe(MINUTE);
      jest.setSystemTime(Date.now() - 3_600_000);
      jest.advanceTimersByTime(MINUTE);
      expect(limiter.retryAfterMs('203.0.113.1')).toBe(0);
    });
  });
});
