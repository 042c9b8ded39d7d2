import { Injectable } from '@nestjs/common';
import { PeriodicPurger } from '@mailroom/runtime';
import { IdempotencyStore } from './idempotency.store';

/** Drops Idempotency-Key answers past their 24 hours, once an hour: background work, so only in processes that do it (EMAILS_ROLE). */
@Injectable()
export class IdempotencyPurger extends PeriodicPurger {
  protected readonly what = 'Idempotency-Key answers past their 24 hours';
  protected readonly everyMs = 60 * 60 * 1000;

  constructor(private readonly idempotency: IdempotencyStore) {
    super();
  }

  protected purge(): Promise<number> {
    return this.idempotency.purgeExpired();
  }
}
