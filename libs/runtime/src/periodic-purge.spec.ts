import { schedulePurge } from './periodic-purge';

const logger = { log: jest.fn(), error: jest.fn(), warn: jest.fn(), debug: jest.fn() };

describe(schedulePurge.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('starts no purge while the last one still runs, and the next once it has ended', async () => {
    let finish: (deleted: number) => void = () => undefined;
    const purge = jest.fn(() => new Promise<number>((resolve) => (finish = resolve)));
    const timer = schedulePurge(logger, 'rows', 1000, purge);

    // A catch-up purge that outlasts three intervals holds one connection, not three.
    await jest.advanceTimersByTimeAsync(3500);
    expect(purge).toHaveBeenCalledTimes(1);

    finish(5000);
    await jest.advanceTimersByTimeAsync(1000);
    expect(purge).toHaveBeenCalledTimes(2);
    clearInterval(timer);
  });
});
