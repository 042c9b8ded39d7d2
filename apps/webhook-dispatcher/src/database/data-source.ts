import { ServiceSchema } from '@mailroom/database';
import { DeliveryAttemptEntity } from './entities/delivery-attempt.entity';
import { DeliveryEntity } from './entities/delivery.entity';
import { WebhookEntity } from './entities/webhook.entity';
import { CreateWebhooksSchema1763800000300 } from './migrations/1763800000300-create-webhooks-schema';
import { CreateWebhooksTables1763800000310 } from './migrations/1763800000310-create-webhooks-tables';
import { AddWebhookDomainRestrictions1763800000320 } from './migrations/1763800000320-add-webhook-domain-restrictions';
import { AddDeliveryPayloadBytes1763800000330 } from './migrations/1763800000330-add-delivery-payload-bytes';

export const WEBHOOKS_SCHEMA: ServiceSchema = {
  schema: 'webhooks',
  entities: [WebhookEntity, DeliveryEntity, DeliveryAttemptEntity],
  migrations: [CreateWebhooksSchema1763800000300, CreateWebhooksTables1763800000310, AddWebhookDomainRestrictions1763800000320, AddDeliveryPayloadBytes1763800000330],
};
