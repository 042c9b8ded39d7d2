import { Client } from 'pg';

export interface DatabaseOutage {
  /** Lets connections in again. */
  end(): Promise<void>;
}

/**
 * Takes a test database out of service as a Postgres restart or failover
 * would look to the apps: new connections are refused ("not currently
 * accepting connections") and every open one is terminated, except those of
 * the backend pids in `spare` (a test's own client). Run through an
 * administrative connection to another database, as an operator would.
 */
export async function startDatabaseOutage(databaseUrl: string, spare: number[] = []): Promise<DatabaseOutage> {
  const database = new URL(databaseUrl).pathname.slice(1);
  const admin = new Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND NOT (pid = ANY($2::int[]))', [database, spare]);
  } catch (error) {
    await admin.end();
    throw error;
  }
  return {
    end: async () => {
      try {
        await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
      } finally {
        await admin.end();
      }
    },
  };
}
