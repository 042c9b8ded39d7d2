import { isDatabaseUnavailable } from '@mailroom/errors';

export interface UnavailableRetryOptions {
  /** How long to keep trying, counted from the first failure; then the last error is thrown. Absent: until written. */
  giveUpAfterMs?: number;
  /** Told of each failure that will be tried again (for a metric). */
  onRetry?: (error: unknown) => void;
  /** Told of each failure that will be tried again and of each success, e.g. a RepeatedFailureLog shared by every caller. */
  failures?: { failed(error: unknown): void; succeeded(): void };
  /** Other failures to try again, such as isTransactionConflict for a write Postgres aborted to break a deadlock. */
  alsoRetry?: (error: unknown) => boolean;
}

const FIRST_WAIT_MS = 100;
const LONGEST_WAIT_MS = 2000;

/**
 * Runs `write` again, with growing waits, while it fails because Postgres
 * cannot be reached (restarting, failing over, connections killed). For
 * writes that record something that already happened outside the database,
 * such as an SMTP server's 250 or a webhook endpoint's 200: given up at once,
 * the record would be lost with its lease, and the lease's next holder would
 * do the outside thing again. Any other error is thrown at once. The write
 * must be safe to repeat (a lease-fenced update is).
 */
export async function retryWhileDatabaseUnavailable<T>(write: () => Promise<T>, options: UnavailableRetryOptions): Promise<T> {
  let giveUpAt: number | undefined;
  let wait = FIRST_WAIT_MS;
  for (;;) {
    try {
      const written = await write();
      options.failures?.succeeded();
      return written;
    } catch (error) {
      giveUpAt ??= Date.now() + (options.giveUpAfterMs ?? Number.POSITIVE_INFINITY);
      if (!(isDatabaseUnavailable(error) || options.alsoRetry?.(error)) || Date.now() + wait > giveUpAt) throw error;
      options.onRetry?.(error);
      options.failures?.failed(error);
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, LONGEST_WAIT_MS);
    }
  }
}
