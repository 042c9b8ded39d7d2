import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyKeyWait } from '@mailroom/runtime';
import { DeliveryAttemptEntity } from '../database/entities/delivery-attempt.entity';
import { DeliveryEntity } from '../database/entities/delivery.entity';
import { WebhookEntity } from '../database/entities/webhook.entity';
import { DeliveriesRepository } from '../deliveries/deliveries.repository';
import { DeliveriesService } from '../deliveries/deliveries.service';
import { DeliveryLogPurger } from '../deliveries/delivery-log-purger';
import { AttemptRecorder } from '../dispatch/attempt-recorder';
import { DeliveryAttempter } from '../dispatch/delivery-attempter';
import { DeliveryWorker } from '../dispatch/delivery-worker';
import { DispatchRepository } from '../dispatch/dispatch.repository';
import { EventConsumer } from '../dispatch/event-consumer';
import { WebhookSettings } from '../webhook-settings';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';
import { WebhookSecretResealer } from './webhook-secret-resealer';
import { WebhookIdempotency } from './webhook-idempotency';
import { WebhookIdempotencyPurger } from './webhook-idempotency.purger';

/** Webhook management (over NATS) and the dispatch loop: stream consumer, delivery worker. */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEntity, DeliveryEntity, DeliveryAttemptEntity])],
  controllers: [WebhooksController],
  providers: [
    WebhookSettings,
    WebhooksRepository,
    WebhooksService,
    IdempotencyKeyWait,
    WebhookIdempotency,
    WebhookIdempotencyPurger,
    DeliveriesRepository,
    DeliveriesService,
    DeliveryLogPurger,
    DispatchRepository,
    AttemptRecorder,
    DeliveryAttempter,
    DeliveryWorker,
    EventConsumer,
    WebhookSecretResealer,
  ],
})
export class WebhooksModule {}
