import { isDatabaseUnavailable } from '@mailroom/errors';

/** The part of Nest's Logger this needs. */
export interface FailureLogger {
  error(message: unknown, ...rest: unknown[]): void;
  warn(message: unknown, ...rest: unknown[]): void;
  log(message: unknown, ...rest: unknown[]): void;
}

/** While the same step keeps failing, one line per this interval. */
const REPEAT_EVERY_MS = 30_000;

/**
 * Logs a step that runs on a timer (a worker's poll) and may fail many times
 * in a row: the first failure at once, then one line every 30 s with how many
 * failures it stands for, and a line when the step works again. A database
 * that cannot be reached (a restart, a failover) is a warning, since the
 * step retries by itself and readiness reports it; anything else is an error.
 * Without this, a worker polling every 200 ms writes 300 error lines a minute
 * through a Postgres restart.
 */
export class RepeatedFailureLog {
  private failingSince?: number;
  private lastLoggedAt = 0;
  private unlogged = 0;

  constructor(
    private readonly logger: FailureLogger,
    private readonly step: string,
    private readonly now: () => number = Date.now,
  ) {}

  failed(error: unknown): void {
    const now = this.now();
    this.failingSince ??= now;
    if (this.lastLoggedAt && now - this.lastLoggedAt < REPEAT_EVERY_MS) {
      this.unlogged += 1;
      return;
    }
    const fields = { err: (error as Error)?.message ?? String(error), failingForMs: now - this.failingSince, failuresSinceLastLine: this.unlogged };
    if (isDatabaseUnavailable(error)) this.logger.warn(fields, `${this.step} failed: the database is unavailable; retrying`);
    else this.logger.error(fields, `${this.step} failed`);
    this.lastLoggedAt = now;
    this.unlogged = 0;
  }

  succeeded(): void {
    if (this.failingSince === undefined) return;
    this.logger.log({ failedForMs: this.now() - this.failingSince }, `${this.step} works again`);
    this.failingSince = undefined;
    this.lastLoggedAt = 0;
    this.unlogged = 0;
  }
}
