import { Injectable } from '@nestjs/common';
import { IdempotencyKeysPurger } from '@mailroom/runtime';
import { WebhookIdempotency } from './webhook-idempotency';

/** The webhook creations' expired Idempotency-Keys, as the emails service purges the sends'. */
@Injectable()
export class WebhookIdempotencyPurger extends IdempotencyKeysPurger {
  constructor(idempotency: WebhookIdempotency) {
    super(idempotency, "webhook creations'");
  }
}
