import { ServiceSchema } from '@mailroom/database';
import { CreateEmailsSchema1763800000200 } from './migrations/1763800000200-create-emails-schema';

export const EMAILS_SCHEMA: ServiceSchema = {
  schema: 'emails',
  entities: [],
  migrations: [CreateEmailsSchema1763800000200],
};
