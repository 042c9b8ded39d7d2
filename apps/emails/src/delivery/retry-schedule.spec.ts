import { nextAttemptAt } from './retry-schedule';

describe(nextAttemptAt.name, () => {
  const now = new Date('2030-01-01T00:00:00.000Z');
  const schedule = [60_000, 300_000];

  it('waits the scheduled time after each failure', () => {
    expect(nextAttemptAt(schedule, 1, now)?.toISOString()).toBe('2030-01-01T00:01:00.000Z');
    expect(nextAttemptAt(schedule, 2, now)?.toISOString()).toBe('2030-01-01T00:05:00.000Z');
  });

  it('gives up once the schedule is used up', () => {
    expect(nextAttemptAt(schedule, 3, now)).toBeNull();
    expect(nextAttemptAt([], 1, now)).toBeNull();
  });
});
