import type { LoggerService } from '@nestjs/common';
import { repeatEvery } from './repeating-task';

/** A purge that runs on a timer until stopped. */
export interface PurgeSchedule {
  stop(): void;
}

/** The first purge of a process comes within this long of its boot, or within one interval if that is shorter. */
export const FIRST_PURGE_WITHIN_MS = 5 * 60 * 1000;

/**
 * Runs a retention purge every `everyMs`, beside the request path and never
 * keeping the process alive: how many rows went is logged at debug (the
 * outbox purge runs every minute), and a failure is a warning that the next
 * run retries.
 *
 * The first purge comes at a random moment within FIRST_PURGE_WITHIN_MS of
 * boot, not one interval after it: a process restarted more often than its
 * interval (an hourly purge, deploys every half hour, a crash loop) would
 * otherwise never purge at all; the random moment keeps replicas that boot
 * together from purging together. The next purge is timed from the end of
 * the last one, so a catch-up purge (retention just switched on over years of
 * emails) that outlasts the interval never has a second one started beside
 * it, contending for its rows and holding another connection of the pool.
 */
export function schedulePurge(logger: LoggerService, what: string, everyMs: number, purge: () => Promise<number>, random: () => number = Math.random): PurgeSchedule {
  const loop = repeatEvery(
    everyMs,
    async () => {
      try {
        const deleted = await purge();
        if (deleted) logger.debug?.({ deleted }, `deleted ${what}`);
      } catch (error) {
        logger.warn({ err: (error as Error).message }, `deleting ${what} failed; the next purge retries`);
      }
    },
    Math.floor(random() * Math.min(everyMs, FIRST_PURGE_WITHIN_MS)),
  );
  return { stop: () => void loop.stop() };
}
