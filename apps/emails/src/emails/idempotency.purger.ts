import { Injectable } from '@nestjs/common';
import { IdempotencyKeysPurger } from '@mailroom/runtime';
import { IdempotencyStore } from './idempotency.store';

/** The sends' expired Idempotency-Keys: background work, so only in processes that do it (EMAILS_ROLE). */
@Injectable()
export class IdempotencyPurger extends IdempotencyKeysPurger {
  constructor(idempotency: IdempotencyStore) {
    super(idempotency, "sends'");
  }
}
