import type { DataSource, EntityManager } from 'typeorm';

/**
 * The plan Postgres picks for `sql` (EXPLAIN: planned, not run), inside a
 * transaction that first runs `prepare`, where the code under test sets its
 * planner switches (planOnIndexes) before the same statement.
 */
export function queryPlan(
  dataSource: DataSource,
  sql: string,
  parameters: unknown[] = [],
  prepare: (manager: EntityManager) => Promise<void> = async () => undefined,
): Promise<string> {
  return dataSource.transaction(async (manager) => {
    await prepare(manager);
    const rows: Array<{ 'QUERY PLAN': string }> = await manager.query(`EXPLAIN ${sql}`, parameters);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}
