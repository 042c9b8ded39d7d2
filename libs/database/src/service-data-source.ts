import { Client, ClientConfig } from 'pg';
import { DataSourceOptions } from 'typeorm';
import { LeavesReadOnlyServer } from './read-only-server';

export interface ServiceSchema {
  /** The Postgres schema the service owns; no other service reads it. */
  schema: string;
  entities: DataSourceOptions['entities'];
  migrations: DataSourceOptions['migrations'];
}

/**
 * A pooled connection left idle this long starts TCP keepalive probes (Node
 * then probes once a second, ten times), so one whose host vanished without a
 * word (a failover that moved the address, a dropped NAT entry) is found dead
 * and dropped while idle, rather than handed to the next query to hang on.
 */
const KEEPALIVE_AFTER_IDLE_MS = 10_000;

/**
 * node-postgres's Client, listening for its own 'error' events from the
 * start. The pool stops listening when it hands a connection out, and TypeORM
 * starts a few promise steps later; a FATAL read in the same burst as a new
 * connection's ReadyForQuery (Postgres shutting down just as the connection
 * is made) was emitted in between to no listener, which ends the process.
 * Nothing is lost by listening here: the client is marked unusable, so its
 * holder's next query fails as "not queryable" (the database unavailable, a
 * 503), the pool drops it when it comes back, and whoever else listens (the
 * pool while it is idle, TypeORM while it is held) still hears the error.
 */
class AlwaysListenedClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}

export interface PoolLimits {
  /** Connections the pool opens at most; 10 unless set. */
  size?: number;
  /**
   * How long a query waits for a connection, a free one of the pool or a new
   * one to be opened; past it the query fails as the database being
   * unavailable. Unset, it waits for as long as Postgres takes (migrations and
   * scripts, which have no caller to answer in time).
   */
  acquireTimeoutMs?: number;
}

/** TypeORM options for one service: its own schema and migrations table, never synchronize. */
export function serviceDataSourceOptions(databaseUrl: string, owned: ServiceSchema, pool: PoolLimits = {}): DataSourceOptions {
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
    extra: {
      Client: AlwaysListenedClient,
      max: pool.size ?? 10,
      application_name: `mailroom-${owned.schema}`,
      // node-postgres's name; 0 is its "no limit".
      connectionTimeoutMillis: pool.acquireTimeoutMs ?? 0,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_AFTER_IDLE_MS,
      // A connection to a server that turned out read-only (a failover) is not reused (LeavesReadOnlyServer).
      Client: LeavesReadOnlyServer,
    },
  };
}
