import type { LoggerService } from '@nestjs/common';

/**
 * Runs a retention purge every `everyMs`, beside the request path and never
 * keeping the process alive: how many rows went is logged at debug (the
 * outbox purge runs every minute), and a failure is a warning that the next
 * run retries. Answers the timer, for clearInterval at shutdown.
 */
export function schedulePurge(logger: LoggerService, what: string, everyMs: number, purge: () => Promise<number>): NodeJS.Timeout {
  return setInterval(async () => {
    try {
      const deleted = await purge();
      if (deleted) logger.debug?.({ deleted }, `deleted ${what}`);
    } catch (error) {
      logger.warn({ err: (error as Error).message }, `deleting ${what} failed; the next purge retries`);
    }
  }, everyMs).unref();
}
