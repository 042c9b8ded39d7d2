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
 * How long a pooled connection may sit idle before the pool closes it
 * (node-postgres closes them after 10 s unless told). After a lull of more
 * than 10 s, the next burst of requests opened every connection again, each
 * a Postgres backend to fork, authenticate and prepare its statements for:
 * the first second of traffic after a pause paid hundreds of milliseconds
 * (the send bench's paced phase, started after the capacity phase's backlog
 * had drained: its first second read 474–638 ms at p99 in four runs,
 * 117–322 ms in four with the pool kept). A minute covers a lull without holding a burst's connections
 * (ten per app at most) for long on a Postgres that other apps share.
 */
const POOL_IDLE_CLOSE_MS = 60_000;

/** Connections an app's pool opens at most: what each replica may hold of Postgres's max_connections. */
export const APP_POOL_SIZE = 10;

export interface PoolLimits {
  /** Connections the pool opens at most; APP_POOL_SIZE unless set. */
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
      max: pool.size ?? APP_POOL_SIZE,
      application_name: `mailroom-${owned.schema}`,
      // node-postgres's name; 0 is its "no limit".
      connectionTimeoutMillis: pool.acquireTimeoutMs ?? 0,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_AFTER_IDLE_MS,
      idleTimeoutMillis: POOL_IDLE_CLOSE_MS,
      // Listens for its own errors from the start (AlwaysListenedClient), and a connection to a server that
      // turned out read-only (a failover) is not reused (LeavesReadOnlyServer).
      Client: LeavesReadOnlyServer,
    },
  };
}
