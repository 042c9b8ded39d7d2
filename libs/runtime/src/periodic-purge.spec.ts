import { FIRST_PURGE_WITHIN_MS, schedulePurge } from './periodic-purge';

const logger = { log: jest.fn(), error: jest.fn(), warn: jest.fn(), debug: jest.fn() };
const HOUR = 60 * 60 * 1000;

describe(schedulePurge.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('starts no purge while the last one still runs, and the next one interval after it ended', async () => {
    let finish: (deleted: number) => void = () => undefined;
    const purge = jest.fn(() => new Promise<number>((resolve) => (finish = resolve)));
    const schedule = schedulePurge(logger, 'rows', 1000, purge, () => 0);

    // A catch-up purge that outlasts three intervals holds one connection, not three.
    await jest.advanceTimersByTimeAsync(3500);
    expect(purge).toHaveBeenCalledTimes(1);

    finish(5000);
    await jest.advanceTimersByTimeAsync(999);
    expect(purge).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(purge).toHaveBeenCalledTimes(2);
    schedule.stop();
  });

  it('purges first within minutes of boot, not one interval after it, so a process restarted every half hour still purges hourly data', async () => {
    const purge = jest.fn(async () => 0);
    const schedule = schedulePurge(logger, 'rows', HOUR, purge, () => 0.999);
    await jest.advanceTimersByTimeAsync(FIRST_PURGE_WITHIN_MS);
    expect(purge).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(HOUR);
    expect(purge).toHaveBeenCalledTimes(2);
    schedule.stop();
  });

  it('spreads the first purges of replicas booted together over that window', async () => {
    const firstAt: number[] = [];
    const start = Date.now();
    const schedules = [0, 0.25, 0.5, 0.75].map((draw) => schedulePurge(logger, 'rows', HOUR, async () => (firstAt.push(Date.now() - start), 0), () => draw));
    await jest.advanceTimersByTimeAsync(FIRST_PURGE_WITHIN_MS);
    expect(firstAt).toEqual([0, 0.25, 0.5, 0.75].map((draw) => Math.floor(draw * FIRST_PURGE_WITHIN_MS)));
    for (const schedule of schedules) schedule.stop();
  });

  it('waits at most one interval for the first purge when the interval is shorter than the window', async () => {
    const purge = jest.fn(async () => 0);
    const schedule = schedulePurge(logger, 'rows', 60_000, purge, () => 0.999);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(purge).toHaveBeenCalledTimes(1);
    schedule.stop();
  });

  it('purges no more once stopped, even when stopped while a purge runs', async () => {
    let finish: (deleted: number) => void = () => undefined;
    const purge = jest.fn(() => new Promise<number>((resolve) => (finish = resolve)));
    const schedule = schedulePurge(logger, 'rows', 1000, purge, () => 0);
    await jest.advanceTimersByTimeAsync(0);
    expect(purge).toHaveBeenCalledTimes(1);
    schedule.stop();
    finish(0);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(purge).toHaveBeenCalledTimes(1);
  });

  it('warns of a failed purge and tries again one interval later', async () => {
    const purge = jest.fn().mockRejectedValueOnce(new Error('database unavailable')).mockResolvedValue(0);
    const schedule = schedulePurge(logger, 'rows', 1000, purge, () => 0);
    await jest.advanceTimersByTimeAsync(1000);
    expect(purge).toHaveBeenCalledTimes(2);
    expect(logger.warn).toHaveBeenCalledWith({ err: 'database unavailable' }, 'deleting rows failed; the next purge retries');
    schedule.stop();
  });
});
