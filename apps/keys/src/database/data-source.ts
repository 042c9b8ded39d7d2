import { ServiceSchema } from '@mailroom/database';
import { ApiKeyEntity } from './entities/api-key.entity';
import { CreateApiKeys1763800000000 } from './migrations/1763800000000-create-api-keys';
import { StoreRestrictedDomainsInPunycode1763800000010 } from './migrations/1763800000010-store-restricted-domains-in-punycode';
import { NarrowIpv4MappedRestrictions1763800000020 } from './migrations/1763800000020-narrow-ipv4-mapped-restrictions';
import { NarrowDottedIpv6Restrictions1763800000030 } from './migrations/1763800000030-narrow-dotted-ipv6-restrictions';

export const KEYS_SCHEMA: ServiceSchema = {
  schema: 'keys',
  entities: [ApiKeyEntity],
  migrations: [CreateApiKeys1763800000000, StoreRestrictedDomainsInPunycode1763800000010, NarrowIpv4MappedRestrictions1763800000020, NarrowDottedIpv6Restrictions1763800000030],
};
