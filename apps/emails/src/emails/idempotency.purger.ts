import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { schedulePurge } from '@mailroom/runtime';
import { IdempotencyStore } from './idempotency.store';

const PURGE_EVERY_MS = 60 * 60 * 1000;

/** Drops Idempotency-Key answers past their 24 hours, once an hour: background work, so only in processes that do it (EMAILS_ROLE). */
@Injectable()
export class IdempotencyPurger implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(IdempotencyPurger.name);
  private timer?: NodeJS.Timeout;

  constructor(private readonly idempotency: IdempotencyStore) {}

  onApplicationBootstrap(): void {
    this.timer = schedulePurge(this.logger, 'Idempotency-Key answers past their 24 hours', PURGE_EVERY_MS, () => this.idempotency.purgeExpired());
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
