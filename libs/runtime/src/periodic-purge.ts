import type { LoggerService } from '@nestjs/common';

/**
 * Runs a retention purge every `everyMs`, beside the request path and never
 * keeping the process alive: how many rows went is logged at debug (the
 * outbox purge runs every minute), and a failure is a warning that the next
 * run retries. A tick that comes while the last purge still runs is skipped:
 * a catch-up purge (retention just switched on over years of emails) can take
 * longer than the interval, and purges started beside it would only contend
 * for its rows, each holding a connection of the pool. Answers the timer, for
 * clearInterval at shutdown.
 */
export function schedulePurge(logger: LoggerService, what: string, everyMs: number, purge: () => Promise<number>): NodeJS.Timeout {
  let running = false;
  return setInterval(async () => {
    if (running) return;
    running = true;
    try {
      const deleted = await purge();
      if (deleted) logger.debug?.({ deleted }, `deleted ${what}`);
    } catch (error) {
      logger.warn({ err: (error as Error).message }, `deleting ${what} failed; the next purge retries`);
    } finally {
      running = false;
    }
  }, everyMs).unref();
}
