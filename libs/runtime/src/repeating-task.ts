/** A task run on a timer until stopped. */
export interface RepeatingTask {
  /** No run starts after this; answers once the run in flight, if any, has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `task` first after `firstAfterMs`, then `everyMs` after each run ends: timed from the end, so a slow run never
 * has a second one started beside it. The task handles its own errors (a rejection is ignored here, and the next run
 * comes as usual). The timer never keeps the process alive.
 */
export function repeatEvery(everyMs: number, task: () => Promise<void>, firstAfterMs = everyMs): RepeatingTask {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const runAfter = (delayMs: number) => {
    timer = setTimeout(() => {
      running = task()
        .catch(() => undefined)
        .finally(() => {
          if (!stopped) runAfter(everyMs);
        });
    }, delayMs).unref();
  };
  runAfter(firstAfterMs);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
