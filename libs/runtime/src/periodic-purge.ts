import type { LoggerService } from '@nestjs/common';

/**
 * Runs a retention purge every `everyMs`, beside the request path and never
 * keeping the process alive: what it deleted is logged, and a failure is a
 * warning that the next run retries. Answers the timer, for clearInterval at
 * shutdown.
 */
export function schedulePurge(logger: LoggerService, what: string, everyMs: number, purge: () => Promise<number>): NodeJS.Timeout {
  return setInterval(async () => {
    try {
      const deleted = await purge();
      if (deleted) logger.log({ deleted }, `deleted ${what}`);
    } catch (error) {
      logger.warn({ err: (error as Error).message }, `deleting ${what} failed; the next purge retries`);
    }
  }, everyMs).unref();
}
