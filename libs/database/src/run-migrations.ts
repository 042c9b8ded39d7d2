import { DataSource } from 'typeorm';
import { createSchemaUnlessExists } from './create-schema';
import { isLockStepBack, lockHolders, MIGRATION_LOCK_WAIT, MigrationLockWait } from './migration-lock-wait';
import { serviceDataSourceOptions, ServiceSchema } from './service-data-source';

/** Serializes concurrent migrators (several pods, or a Job and a pod) on one database. */
const MIGRATION_LOCK_ID = 0x6d61696c; // "mail"

/**
 * Runs one service's migrations. The schema must exist before TypeORM can
 * create its migrations table inside it, so it is created first. Each
 * migration is its own transaction, so one that steps back from a table lock
 * (see MigrationLockWait and isLockStepBack) leaves the ones before it applied
 * and is run again.
 */
export async function runServiceMigrations(databaseUrl: string, owned: ServiceSchema, lockWait: MigrationLockWait = MIGRATION_LOCK_WAIT): Promise<string[]> {
  // One connection, so the session settings below hold for every statement.
  const dataSource = new DataSource(serviceDataSourceOptions(databaseUrl, owned, { size: 1 }));
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    // After the advisory lock: waiting for another migrator is not the wait to bound.
    await dataSource.query(`SET lock_timeout = ${Math.ceil(lockWait.perTryMs)}`);
    await createSchemaUnlessExists(dataSource, owned.schema);
    const applied = await applyStepping(dataSource, owned.schema, lockWait);
    await dataSource.query('RESET lock_timeout');
    await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    return applied;
  } finally {
    await dataSource.destroy();
  }
}

/** Runs the pending migrations, stepping back and trying again while a table lock is out of reach; answers the names applied. */
async function applyStepping(dataSource: DataSource, schema: string, lockWait: MigrationLockWait): Promise<string[]> {
  const before = new Set(await appliedNames(dataSource));
  const giveUpAt = Date.now() + lockWait.giveUpAfterMs;
  for (;;) {
    try {
      await dataSource.runMigrations({ transaction: 'each' });
      break;
    } catch (error) {
      if (!isLockStepBack(error)) throw error;
      if (Date.now() + lockWait.pauseMs >= giveUpAt) throw await gaveUp(dataSource, schema, lockWait, pendingName(dataSource, await appliedNames(dataSource)));
      await new Promise((resolve) => setTimeout(resolve, lockWait.pauseMs));
    }
  }
  return (await appliedNames(dataSource)).filter((name) => !before.has(name));
}

async function appliedNames(dataSource: DataSource): Promise<string[]> {
  const table = dataSource.driver.escape(dataSource.options.migrationsTableName ?? 'migrations');
  const schema = dataSource.driver.escape((dataSource.options as { schema?: string }).schema ?? 'public');
  const exists: { found: boolean }[] = await dataSource.query(`SELECT to_regclass($1) IS NOT NULL AS found`, [`${schema}.${table}`]);
  if (!exists[0].found) return [];
  const rows: { name: string }[] = await dataSource.query(`SELECT name FROM ${schema}.${table} ORDER BY timestamp`);
  return rows.map((row) => row.name);
}

/** The first migration not yet applied: the one that was waiting for the lock. */
function pendingName(dataSource: DataSource, applied: string[]): string {
  const done = new Set(applied);
  return dataSource.migrations.map((migration) => migration.name ?? migration.constructor.name).find((name) => !done.has(name)) ?? 'unknown';
}

async function gaveUp(dataSource: DataSource, schema: string, lockWait: MigrationLockWait, migration: string): Promise<Error> {
  const holders = await lockHolders(dataSource, schema);
  return new Error(
    `${schema}: migration ${migration} could not take a table lock in ${Math.round(lockWait.giveUpAfterMs / 1000)} s ` +
      `(each try waits ${lockWait.perTryMs} ms, then steps back so the running apps' queries are not queued behind it). ` +
      `A long transaction holds the table${holders.length ? `: ${holders.join('; ')}` : ''}. ` +
      `End it (a backup, an open psql session) and run the migrations again; those before ${migration} are applied.`,
  );
}
