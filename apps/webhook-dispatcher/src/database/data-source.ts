import { ServiceSchema } from '@mailroom/database';
import { CreateWebhooksSchema1763800000300 } from './migrations/1763800000300-create-webhooks-schema';

export const WEBHOOKS_SCHEMA: ServiceSchema = {
  schema: 'webhooks',
  entities: [],
  migrations: [CreateWebhooksSchema1763800000300],
};
