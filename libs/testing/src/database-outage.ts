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
export function startDatabaseOutage(databaseUrl: string, spare: number[] = []): Promise<DatabaseOutage> {
  return alterDatabase(databaseUrl, spare, 'ALLOW_CONNECTIONS false', 'ALLOW_CONNECTIONS true');
}

/**
 * Makes a test database answer as a hot standby does while a failover is
 * under way (a client routed to the old primary, now a replica, or to a
 * reader while DNS lags, as after an Aurora failover): connections are taken
 * and reads work, but every write fails with 25006 "cannot execute … in a
 * read-only transaction". Open connections other than `spare` are terminated,
 * so the new ones pick the setting up. `end()` undoes the setting but leaves
 * the connections opened meanwhile open and read-only, as a reader keeps the
 * connections it took once DNS has moved to the new primary: the apps must
 * leave them themselves (LeavesReadOnlyServer) to write again.
 */
export function startReadOnlyDatabase(databaseUrl: string, spare: number[] = []): Promise<DatabaseOutage> {
  return alterDatabase(databaseUrl, spare, 'SET default_transaction_read_only = on', 'RESET default_transaction_read_only', false);
}

/** ALTER DATABASE … `start`, terminating its connections but `spare`; `end()` runs `end` and, unless told not to, terminates them again. */
async function alterDatabase(databaseUrl: string, spare: number[], start: string, end: string, terminateAtEnd = true): Promise<DatabaseOutage> {
  const database = new URL(databaseUrl).pathname.slice(1);
  const admin = new Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
  const alter = async (change: string, terminate = true) => {
    await admin.query(`ALTER DATABASE "${database}" ${change}`);
    if (terminate) await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND NOT (pid = ANY($2::int[]))', [database, spare]);
  };
  await admin.connect();
  try {
    await alter(start);
  } catch (error) {
    await admin.end();
    throw error;
  }
  return {
    end: async () => {
      try {
        await alter(end, terminateAtEnd);
      } finally {
        await admin.end();
      }
    },
  };
}
