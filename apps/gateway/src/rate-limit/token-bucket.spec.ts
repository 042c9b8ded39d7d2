import { TokenBuckets } from './token-bucket';

/** A clock the test moves by hand, in ms. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe(TokenBuckets.name, () => {
  it('lets a burst through, then refuses with a Retry-After after which the next request is let through', () => {
    const clock = manualClock();
    const buckets = new TokenBuckets(2, 3, clock.now);
    expect([1, 2, 3].map(() => buckets.take('key').allowed)).toEqual([true, true, true]);
    const refused = buckets.take('key');
    expect(refused).toEqual({ allowed: false, remaining: 0, resetSeconds: 2, retryAfterSeconds: 1 });
    // Half a second gives the one token missing; the Retry-After, in whole seconds, rounds up to 1 s (2 tokens by then).
    clock.advance(499);
    expect(buckets.take('key').allowed).toBe(false);
    clock.advance(refused.retryAfterSeconds * 1000 - 499);
    expect(buckets.take('key')).toEqual({ allowed: true, remaining: 1, resetSeconds: 1, retryAfterSeconds: 1 });
  });

  it('keeps its tokens when the wall clock is set back (NTP stepping it, a VM resumed)', () => {
    let wall = Date.UTC(2026, 10, 27, 12);
    const buckets = new TokenBuckets(50, 100, () => wall);
    expect(buckets.take('key').allowed).toBe(true);
    wall -= 3_600_000;
    const after = buckets.take('key');
    expect(after).toEqual(expect.objectContaining({ allowed: true, remaining: 98 }));
  });

  it('measures time on a clock that never goes back by default', () => {
    const realNow = Date.now;
    let wall = realNow();
    Date.now = () => wall;
    try {
      const buckets = new TokenBuckets(1, 2);
      expect(buckets.take('key').allowed).toBe(true);
      wall -= 3_600_000;
      expect(buckets.take('key').allowed).toBe(true);
    } finally {
      Date.now = realNow;
    }
  });
});
