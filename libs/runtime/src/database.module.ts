import { DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { MailroomConfig } from '@mailroom/config';
import { serviceDataSourceOptions, ServiceSchema, usePreparedStatements } from '@mailroom/database';

/** The TypeORM connection of one service, to its own schema only. */
export function serviceDatabaseModule(config: MailroomConfig, owned: ServiceSchema): DynamicModule {
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required');
  usePreparedStatements(config.DATABASE_PREPARED_STATEMENTS);
  return TypeOrmModule.forRoot(serviceDataSourceOptions(config.DATABASE_URL, owned, { acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_MS }));
}
