import { repeatEvery } from './repeating-task';

describe('repeatEvery', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs first after firstAfterMs, then everyMs after each run ends, never two at once', async () => {
    const starts: number[] = [];
    let finish: () => void = () => undefined;
    const loop = repeatEvery(1000, () => {
      starts.push(Date.now());
      return new Promise<void>((resolve) => (finish = resolve));
    }, 10);
    const begun = Date.now();
    await jest.advanceTimersByTimeAsync(10);
    expect(starts).toEqual([begun + 10]);
    // A run that lasts 5 s has no second one beside it.
    await jest.advanceTimersByTimeAsync(5000);
    expect(starts).toHaveLength(1);
    finish();
    await jest.advanceTimersByTimeAsync(999);
    expect(starts).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(starts).toEqual([begun + 10, begun + 6010]);
    finish();
    await loop.stop();
  });

  it('goes on after a run that rejected', async () => {
    let runs = 0;
    const loop = repeatEvery(100, async () => {
      runs += 1;
      throw new Error('this run failed');
    });
    await jest.advanceTimersByTimeAsync(350);
    expect(runs).toBe(3);
    await loop.stop();
  });

  it('stop waits for the run in flight and starts no other', async () => {
    let finish: () => void = () => undefined;
    let runs = 0;
    const loop = repeatEvery(100, () => {
      runs += 1;
      return new Promise<void>((resolve) => (finish = resolve));
    });
    await jest.advanceTimersByTimeAsync(100);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(50);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    await jest.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(1);
  });
});
