import type { SqlRunner } from './insert-rows';

/** Ways of reading a table that planOnIndexes can switch off besides the sequential scan. */
export type PlanMethod = 'bitmapscan' | 'sort';

/**
 * Keeps the rest of the caller's transaction on its indexes: sequential
 * scans off, and the other methods named (SET LOCAL, so the settings end
 * with the transaction). The queue tables (emails, recipients, outbox) grow
 * faster than autovacuum analyzes them, and a set of keys passed as an array
 * or a JSON recordset is estimated at 100 rows whatever it holds; between
 * the two the planner reads a whole table to find a few dozen rows by key.
 * In the smtp bench that was 2–6 ms a statement at 12,000 recipients, and
 * growing with the table; an index lookup costs the same at any size.
 * `alsoSet`: other numeric settings for the transaction, set in the same round trip.
 */
export async function planOnIndexes(runner: SqlRunner, alsoOff: readonly PlanMethod[] = [], alsoSet: Record<string, number> = {}): Promise<void> {
  const settings = Object.entries(alsoSet).map(([name, value]) => `SET LOCAL ${name} = ${Math.trunc(value)}`);
  await runner.query([...['seqscan', ...alsoOff].map((method) => `SET LOCAL enable_${method} = off`), ...settings].join('; '));
}
