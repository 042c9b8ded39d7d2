import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
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
    this.timer = setInterval(() => void this.purgeQuietly(), PURGE_EVERY_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  private async purgeQuietly(): Promise<void> {
    try {
      const deleted = await this.deliveries.purgeFinished(this.settings.deliveryRetentionMs);
      if (deleted) this.logger.log({ deleted }, 'deleted finished webhook deliveries past WEBHOOK_DELIVERY_RETENTION');
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'deleting old webhook deliveries failed; the next purge retries');
    }
  }
}
