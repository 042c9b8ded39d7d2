import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { schedulePurge } from '@mailroom/runtime';
import { WebhookSettings } from '../webhook-settings';
import { DeliveriesRepository } from './deliveries.repository';

const PURGE_EVERY_MS = 10 * 60 * 1000;

/**
 * Keeps the delivery log to WEBHOOK_DELIVERY_RETENTION: without it every
 * event ever sent stayed in webhooks.deliveries (payload included) and its
 * attempts, for ever. Replicas may purge at the same time; a row deleted
 * twice is simply not found the second time.
 */
@Injectable()
export class DeliveryLogPurger implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DeliveryLogPurger.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly settings: WebhookSettings,
  ) {}

  onApplicationBootstrap(): void {
    const retentionMs = this.settings.deliveryRetentionMs;
    this.timer = schedulePurge(this.logger, 'finished webhook deliveries past WEBHOOK_DELIVERY_RETENTION', PURGE_EVERY_MS, () => this.deliveries.purgeFinished(retentionMs));
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
