import { ServiceSchema } from '@mailroom/database';
import { CreateDomainsSchema1763800000100 } from './migrations/1763800000100-create-domains-schema';

export const DOMAINS_SCHEMA: ServiceSchema = {
  schema: 'domains',
  entities: [],
  migrations: [CreateDomainsSchema1763800000100],
};
