import type { ServiceSchema } from '@mailroom/database';
import { DOMAINS_SCHEMA } from '../apps/domains/src/database/data-source';
import { EMAILS_SCHEMA } from '../apps/emails/src/database/data-source';
import { KEYS_SCHEMA } from '../apps/keys/src/database/data-source';
import { WEBHOOKS_SCHEMA } from '../apps/webhook-dispatcher/src/database/data-source';

/** Every service's schema, in the order migrations run. */
export const SERVICE_SCHEMAS: ServiceSchema[] = [KEYS_SCHEMA, DOMAINS_SCHEMA, EMAILS_SCHEMA, WEBHOOKS_SCHEMA];
