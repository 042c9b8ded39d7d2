import { shutdownWaits } from './shutdown-waits';

describe(shutdownWaits.name, () => {
  it('waits 10 s for deliveries and 5 s for the cut-off ones at the default 25 s', () => {
    expect(shutdownWaits(25_000)).toEqual({ drainMs: 10_000, recordAfterCutOffMs: 5_000 });
  });

  it('fits both waits, with room to spare, within a short SHUTDOWN_TIMEOUT_MS', () => {
    for (const timeout of [1_000, 5_000, 12_000]) {
      const { drainMs, recordAfterCutOffMs } = shutdownWaits(timeout);
      expect(drainMs + recordAfterCutOffMs).toBeLessThan(timeout * 0.7);
      expect(recordAfterCutOffMs).toBeGreaterThan(0);
    }
  });

  it('lets exchanges run longer than a 30 s SMTP_TIMEOUT_MS when the manifest gives shutdown 80 s', () => {
    expect(shutdownWaits(80_000).drainMs).toBeGreaterThan(30_000);
  });
});
