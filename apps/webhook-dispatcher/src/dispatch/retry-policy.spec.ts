import { nextAttemptAt, parseRetryAfter, withJitter } from './retry-policy';

const now = new Date('2025-01-01T00:00:00.000Z');
const schedule = [0, 5000, 300_000, 1_800_000];
const noJitter = () => 0;

describe('retry policy', () => {
  it('follows the schedule: the wait after the nth failed attempt is schedule[n]', () => {
    expect(nextAttemptAt({ schedule, attemptsMade: 1, attemptLimit: 4, retryAfterMs: null, now, random: noJitter })?.getTime()).toBe(now.getTime() + 5000);
    expect(nextAttemptAt({ schedule, attemptsMade: 2, attemptLimit: 4, retryAfterMs: null, now, random: noJitter })?.getTime()).toBe(now.getTime() + 300_000);
    expect(nextAttemptAt({ schedule, attemptsMade: 3, attemptLimit: 4, retryAfterMs: null, now, random: noJitter })?.getTime()).toBe(now.getTime() + 1_800_000);
  });

  it('gives up when the attempt limit is reached', () => {
    expect(nextAttemptAt({ schedule, attemptsMade: 4, attemptLimit: 4, retryAfterMs: null, now })).toBeNull();
    expect(nextAttemptAt({ schedule, attemptsMade: 5, attemptLimit: 5, retryAfterMs: null, now })).toBeNull();
  });

  it('adds between 0 and 10% jitter, never less than the schedule', () => {
    expect(withJitter(1000, () => 0)).toBe(1000);
    expect(withJitter(1000, () => 0.999)).toBe(1100);
    expect(withJitter(0, () => 0.5)).toBe(0);
  });

  it('honours a Retry-After longer than the scheduled wait', () => {
    const at = nextAttemptAt({ schedule, attemptsMade: 1, attemptLimit: 4, retryAfterMs: 60_000, now, random: noJitter });
    expect(at?.getTime()).toBe(now.getTime() + 60_000);
    const shorter = nextAttemptAt({ schedule, attemptsMade: 2, attemptLimit: 4, retryAfterMs: 1000, now, random: noJitter });
    expect(shorter?.getTime()).toBe(now.getTime() + 300_000);
  });

  it('reads Retry-After as seconds or an HTTP date, capped at a day', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('9999999', now)).toBe(24 * 60 * 60 * 1000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
