import type { Client } from 'pg';
import { eventually } from './eventually';

/**
 * Resolves once another session waits on a lock `holder` holds, such as a
 * request blocked on a row that `holder` changed and has not committed. Reads
 * pg_locks, which is live (pg_stat_activity would be read once per transaction).
 */
export async function untilBlockedBy(holder: Client, timeoutMs = 15_000): Promise<void> {
  await eventually(async () => {
    const rows = await holder.query('SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted AND pg_backend_pid() = ANY(pg_blocking_pids(pid))');
    return rows.rows[0].waiting > 0 ? true : undefined;
  }, timeoutMs);
}
