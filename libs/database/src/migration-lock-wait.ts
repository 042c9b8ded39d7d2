import { DataSource } from 'typeorm';

/**
 * How a migration waits for a table lock. A statement such as ALTER TABLE
 * asks for ACCESS EXCLUSIVE, and while it waits Postgres queues every later
 * query on that table behind it: one long transaction holding the table (a
 * pg_dump, an open psql session) would stop the running apps' sends for as
 * long as it lasts. So each try waits at most `perTryMs` (lock_timeout), then
 * the migration rolls back, pauses so the queued queries run, and tries again
 * until `giveUpAfterMs`.
 */
export interface MigrationLockWait {
  perTryMs: number;
  pauseMs: number;
  giveUpAfterMs: number;
}

export const MIGRATION_LOCK_WAIT: MigrationLockWait = { perTryMs: 2_000, pauseMs: 1_000, giveUpAfterMs: 5 * 60_000 };

const LOCK_NOT_AVAILABLE = '55P03';
const DEADLOCK_DETECTED = '40P01';

/**
 * Whether a migration failed for a lock it could not take, so that stepping
 * back and trying again is the answer: lock_timeout ran out, or Postgres
 * cancelled it out of a deadlock with a running transaction that writes the
 * same tables in the other order (a send writes emails, then recipients;
 * a migration altering recipients, then emails, waits for each other's).
 * Either way its transaction rolled back whole and the other side goes on.
 */
export function isLockStepBack(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === LOCK_NOT_AVAILABLE || code === DEADLOCK_DETECTED;
}

/** The other sessions holding locks on the schema's tables, for the message when a migration gives up. */
export async function lockHolders(dataSource: DataSource, schema: string): Promise<string[]> {
  const rows: { pid: number; application_name: string; state: string; seconds: number | null }[] = await dataSource.query(
    `SELECT DISTINCT a.pid, a.application_name, a.state, floor(extract(epoch FROM now() - a.xact_start))::int AS seconds
       FROM pg_locks l
       JOIN pg_class c ON c.oid = l.relation
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE n.nspname = $1 AND l.granted AND l.pid <> pg_backend_pid()
      ORDER BY seconds DESC NULLS LAST
      LIMIT 5`,
    [schema],
  );
  return rows.map(
    (row) => `pid ${row.pid} (${row.application_name || 'no application_name'}, ${row.state}${row.seconds === null ? '' : ` in a transaction for ${row.seconds} s`})`,
  );
}
