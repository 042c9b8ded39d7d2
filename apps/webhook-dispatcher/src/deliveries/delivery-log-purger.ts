import { Injectable } from '@nestjs/common';
import { PeriodicPurger } from '@mailroom/runtime';
import { WebhookSettings } from '../webhook-settings';
import { DeliveriesRepository } from './deliveries.repository';

/**
 * Keeps the delivery log to WEBHOOK_DELIVERY_RETENTION: without it every
 * event ever sent stayed in webhooks.deliveries (payload included) and its
 * attempts, for ever. Replicas may purge at the same time; a row deleted
 * twice is simply not found the second time.
 */
@Injectable()
export class DeliveryLogPurger extends PeriodicPurger {
  protected readonly what = 'finished webhook deliveries past WEBHOOK_DELIVERY_RETENTION';
  protected readonly everyMs = 10 * 60 * 1000;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly settings: WebhookSettings,
  ) {
    super();
  }

  protected purge(): Promise<number> {
    return this.deliveries.purgeFinished(this.settings.deliveryRetentionMs);
  }
}
