import { DataSource } from 'typeorm';
import { serviceDataSourceOptions, ServiceSchema } from './service-data-source';

/** Serializes concurrent migrators (several pods, or a Job and a pod) on one database. */
const MIGRATION_LOCK_ID = 0x6d61696c; // "mail"

/**
 * Runs one service's migrations. The schema must exist before TypeORM can
 * create its migrations table inside it, so it is created first.
 */
export async function runServiceMigrations(databaseUrl: string, owned: ServiceSchema): Promise<string[]> {
  const dataSource = new DataSource(serviceDataSourceOptions(databaseUrl, owned, 1));
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${owned.schema}"`);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    return applied.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}
