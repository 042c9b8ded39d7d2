import type { DataSource } from 'typeorm';

/**
 * Undoes a schema's newest migrations back to `name`, that one included, so
 * a migration's data step is tested whatever migrations come after it.
 */
export async function undoMigrationsThrough(dataSource: DataSource, schema: string, name: string): Promise<void> {
  for (;;) {
    const [newest] = await dataSource.query(`SELECT name FROM ${schema}.migrations ORDER BY timestamp DESC LIMIT 1`);
    await dataSource.undoLastMigration({ transaction: 'each' });
    if (!newest || newest.name === name) return;
  }
}
