import { DataSourceOptions } from 'typeorm';
import { LeavesReadOnlyServer } from './read-only-server';

export interface ServiceSchema {
  /** The Postgres schema the service owns; no other service reads it. */
  schema: string;
  entities: DataSourceOptions['entities'];
  migrations: DataSourceOptions['migrations'];
}

/** TypeORM options for one service: its own schema and migrations table, never synchronize. */
export function serviceDataSourceOptions(databaseUrl: string, owned: ServiceSchema, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    schema: owned.schema,
    entities: owned.entities,
    migrations: owned.migrations,
    migrationsTableName: 'migrations',
    migrationsRun: false,
    synchronize: false,
    logging: false,
    // Client: a connection to a server that turned out read-only (a failover) is not reused (LeavesReadOnlyServer).
    extra: { max: poolSize, application_name: `mailroom-${owned.schema}`, Client: LeavesReadOnlyServer },
  };
}
