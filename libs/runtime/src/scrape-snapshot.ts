/** Gauges read together in one scrape share one read. */
const SNAPSHOT_MAX_AGE_MS = 1000;
/** A scrape must not hang on a database that does not answer; the gauges then keep their last values. */
const READ_TIMEOUT_MS = 2000;

interface WarnLogger {
  warn(fields: object, message: string): void;
}

/**
 * Fills gauges when Prometheus scrapes, with `read` (which sets them), at
 * most once a second however many scrapers and gauges ask. Nothing is
 * computed between scrapes. A read that fails or takes over two seconds is
 * logged and leaves the gauges as they were.
 */
export class ScrapeSnapshot {
  private pending: Promise<void> | undefined;
  private takenAt = -Infinity;

  constructor(
    private readonly read: () => Promise<void>,
    private readonly logger: WarnLogger,
    /** What is read, for the warning: "the delivery queue". */
    private readonly what: string,
  ) {}

  refresh(): Promise<void> {
    // A monotonic clock: the wall clock set back an hour would otherwise keep the gauges frozen for that hour.
    const now = performance.now();
    if (this.pending && now - this.takenAt < SNAPSHOT_MAX_AGE_MS) return this.pending;
    this.takenAt = now;
    this.pending = this.update();
    return this.pending;
  }

  private async update(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${READ_TIMEOUT_MS} ms`)), READ_TIMEOUT_MS)));
      await Promise.race([this.read(), timeout]);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, `reading ${this.what} for metrics failed; the gauges keep their last values`);
    } finally {
      clearTimeout(timer);
    }
  }
}
