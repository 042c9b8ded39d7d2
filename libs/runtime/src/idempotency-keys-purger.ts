import { IDEMPOTENCY_LIMITS } from '@mailroom/contracts';
import { PeriodicPurger } from './periodic-purger';

/**
 * Drops a service's Idempotency-Keys past their 24 hours, once an hour
 * (IdempotencyKeys.purgeExpired, in bounded statements). A subclass names
 * the service's store, so Nest can inject it.
 */
export abstract class IdempotencyKeysPurger extends PeriodicPurger {
  protected readonly what: string;
  protected readonly everyMs = 60 * 60 * 1000;

  protected constructor(
    private readonly keys: { purgeExpired(): Promise<number> },
    keysOf: string,
  ) {
    super();
    this.what = `${keysOf} Idempotency-Keys past their ${IDEMPOTENCY_LIMITS.windowHours} hours`;
  }

  protected purge(): Promise<number> {
    return this.keys.purgeExpired();
  }
}
