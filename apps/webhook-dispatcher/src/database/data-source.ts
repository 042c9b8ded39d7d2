import { ServiceSchema } from '@mailroom/database';
import { DeliveryAttemptEntity } from './entities/delivery-attempt.entity';
import { DeliveryEntity } from './entities/delivery.entity';
import { WebhookEntity } from './entities/webhook.entity';
import { WebhookIdempotencyKeyEntity } from './entities/webhook-idempotency-key.entity';
import { CreateWebhooksSchema1763800000300 } from './migrations/1763800000300-create-webhooks-schema';
import { CreateWebhooksTables1763800000310 } from './migrations/1763800000310-create-webhooks-tables';
import { AddWebhookDomainRestrictions1763800000320 } from './migrations/1763800000320-add-webhook-domain-restrictions';
import { AddDeliveryPayloadBytes1763800000330 } from './migrations/1763800000330-add-delivery-payload-bytes';
import { CreateWebhookIdempotencyKeys1763800000340 } from './migrations/1763800000340-create-webhook-idempotency-keys';

export const WEBHOOKS_SCHEMA: ServiceSchema = {
  schema: 'webhooks',
  entities: [WebhookEntity, DeliveryEntity, DeliveryAttemptEntity, WebhookIdempotencyKeyEntity],
  migrations: [CreateWebhooksSchema1763800000300, CreateWebhooksTables1763800000310, AddWebhookDomainRestrictions1763800000320, AddDeliveryPayloadBytes1763800000330, CreateWebhookIdempotencyKeys1763800000340],
};
