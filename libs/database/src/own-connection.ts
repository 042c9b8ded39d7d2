import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `work` on one pooled connection, taken before it starts and given
 * back when it ends, as each statement of `dataSource.manager` does for
 * itself. For work that must look at something once it holds its connection
 * (the wait for one can be long while the database is slow) and before its
 * first statement, or whose statements should share one connection.
 */
export async function onOwnConnection<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    return await work(runner.manager);
  } finally {
    await runner.release();
  }
}
