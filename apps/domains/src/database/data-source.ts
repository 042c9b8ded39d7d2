import { ServiceSchema } from '@mailroom/database';
import { DkimKeyEntity } from './entities/dkim-key.entity';
import { DomainEntity } from './entities/domain.entity';
import { CreateDomainsSchema1763800000100 } from './migrations/1763800000100-create-domains-schema';
import { CreateDomainsTable1763800000110 } from './migrations/1763800000110-create-domains-table';
import { AddTrackingDomain1763800000120 } from './migrations/1763800000120-add-tracking-domain';
import { AddRecordsMissingSince1763800000130 } from './migrations/1763800000130-add-records-missing-since';
import { RecheckDomainsFailedBeforeRechecks1763800000140 } from './migrations/1763800000140-recheck-domains-failed-before-rechecks';
import { CreateDkimKeys1763800000150 } from './migrations/1763800000150-create-dkim-keys';

export const DOMAINS_SCHEMA: ServiceSchema = {
  schema: 'domains',
  entities: [DomainEntity, DkimKeyEntity],
  migrations: [CreateDomainsSchema1763800000100, CreateDomainsTable1763800000110, AddTrackingDomain1763800000120, AddRecordsMissingSince1763800000130, RecheckDomainsFailedBeforeRechecks1763800000140, CreateDkimKeys1763800000150],
};
