import { PeriodicPurger } from './periodic-purger';

class CountingPurger extends PeriodicPurger {
  protected readonly what = 'test rows';
  protected readonly everyMs = 1000;
  runs = 0;

  constructor(private readonly on = true) {
    super();
  }

  protected enabled(): boolean {
    return this.on;
  }

  protected async purge(): Promise<number> {
    this.runs += 1;
    return 0;
  }
}

describe(PeriodicPurger.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('purges every interval from boot until shutdown', async () => {
    const purger = new CountingPurger();
    purger.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(2500);
    expect(purger.runs).toBe(2);
    purger.onApplicationShutdown();
    await jest.advanceTimersByTimeAsync(5000);
    expect(purger.runs).toBe(2);
  });

  it('never purges when not enabled (a retention set to off)', async () => {
    const purger = new CountingPurger(false);
    purger.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(5000);
    expect(purger.runs).toBe(0);
    purger.onApplicationShutdown();
  });
});
