import { ScrapeSnapshot } from './scrape-snapshot';

describe(ScrapeSnapshot.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reads once for every scrape of the same second, and again after it', async () => {
    const read = jest.fn(async () => undefined);
    const snapshot = new ScrapeSnapshot(read, { warn: jest.fn() }, 'the queue');
    await Promise.all([snapshot.refresh(), snapshot.refresh()]);
    await snapshot.refresh();
    expect(read).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(1000);
    await snapshot.refresh();
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('reads again a second later even when the wall clock was set back meanwhile (NTP stepping it)', async () => {
    const read = jest.fn(async () => undefined);
    const snapshot = new ScrapeSnapshot(read, { warn: jest.fn() }, 'the queue');
    await snapshot.refresh();
    jest.setSystemTime(Date.now() - 3_600_000);
    jest.advanceTimersByTime(1000);
    await snapshot.refresh();
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('gives up on a read that takes over two seconds and logs it, rather than holding the scrape', async () => {
    const warn = jest.fn();
    const snapshot = new ScrapeSnapshot(() => new Promise<void>(() => undefined), { warn }, 'the queue');
    const refreshed = snapshot.refresh();
    jest.advanceTimersByTime(2000);
    await refreshed;
    expect(warn).toHaveBeenCalledWith({ err: 'no answer within 2000 ms' }, 'reading the queue for metrics failed; the gauges keep their last values');
  });
});
