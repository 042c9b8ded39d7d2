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
  beforeEach(() => {
    jest.useFakeTimers();
    // The first purge comes at a random moment within the first interval; here, halfway.
    jest.spyOn(Math, 'random').mockReturnValue(0.5);
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('purges soon after boot and then every interval until shutdown', async () => {
    const purger = new CountingPurger();
    purger.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(2500);
    expect(purger.runs).toBe(3);
    purger.onApplicationShutdown();
    await jest.advanceTimersByTimeAsync(5000);
    expect(purger.runs).toBe(3);
  });

  it('never purges when not enabled (a retention set to off)', async () => {
    const purger = new CountingPurger(false);
    purger.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(5000);
    expect(purger.runs).toBe(0);
    purger.onApplicationShutdown();
  });
});
