import { DataSource, MigrationInterface } from 'typeorm';
import { runServiceMigrations, serviceDataSourceOptions } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { SERVICE_SCHEMAS } from '../service-schemas';

/** Everything a migration can make in a schema, one line each, with the migrations table left out. */
async function catalogOf(dataSource: DataSource, schema: string): Promise<string[]> {
  const lines = async (sql: string): Promise<string[]> => (await dataSource.query(sql, [schema])).map((row: { line: string }) => row.line);
  return [
    ...(await lines(`SELECT format('column %s.%s %s null:%s default:%s', table_name, column_name, data_type, is_nullable, column_default) AS line
                       FROM information_schema.columns WHERE table_schema = $1 AND table_name <> 'migrations'`)),
    ...(await lines(`SELECT format('constraint %s %s %s', c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid)) AS line
                       FROM pg_constraint c WHERE c.connamespace = $1::regnamespace AND c.conrelid <> ($1 || '.migrations')::regclass`)),
    ...(await lines(`SELECT format('index %s', indexdef) AS line FROM pg_indexes WHERE schemaname = $1 AND tablename <> 'migrations'`)),
    ...(await lines(`SELECT format('trigger %s', pg_get_triggerdef(t.oid)) AS line
                       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = $1::regnamespace AND NOT t.tgisinternal`)),
    ...(await lines(`SELECT format('function %s', pg_get_functiondef(p.oid)) AS line FROM pg_proc p WHERE p.pronamespace = $1::regnamespace`)),
    ...(await lines(`SELECT format('relation %s %s %s', relname, relkind, reloptions) AS line
                       FROM pg_class WHERE relnamespace = $1::regnamespace AND relname NOT LIKE 'migrations%'`)),
  ].sort();
}

describe.each(SERVICE_SCHEMAS.map((owned) => [owned.schema, owned] as const))('the %s migrations', (schema, owned) => {
  const migrations = owned.migrations as Array<new () => MigrationInterface>;
  let databaseUrl: string;
  let dataSource: DataSource;
  /** The catalog after each migration's up(): afterUp[i] once migrations[0..i] ran. */
  const afterUp: string[][] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataSource = new DataSource(serviceDataSourceOptions(databaseUrl, owned, { size: 1 }));
    for (let count = 1; count <= migrations.length; count++) {
      await runServiceMigrations(databaseUrl, { ...owned, migrations: migrations.slice(0, count) });
      if (!dataSource.isInitialized) await dataSource.initialize();
      afterUp.push(await catalogOf(dataSource, schema));
    }
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    if (databaseUrl) await dropTestDatabase(databaseUrl);
  });

  it('leave nothing the entities declare missing or different (synchronize would add or change no column)', async () => {
    const sync = await dataSource.driver.createSchemaBuilder().log();
    // Dropping what the entities do not describe (indexes, checks, defaults) is expected; adding or changing is not.
    const changes = sync.upQueries.map((query) => query.query).filter((sql) => /CREATE TABLE|\bADD\b|NOT NULL|\bTYPE\b/.test(sql));
    expect(changes).toEqual([]);
  });

  it('each undo, newest first, restores the schema as it was before that migration', async () => {
    for (let count = migrations.length; count > 1; count--) {
      await dataSource.undoLastMigration({ transaction: 'each' });
      expect({ undone: count, catalog: await catalogOf(dataSource, schema) }).toEqual({ undone: count, catalog: afterUp[count - 2] });
    }
    await dataSource.runMigrations({ transaction: 'each' });
    expect(await catalogOf(dataSource, schema)).toEqual(afterUp[migrations.length - 1]);
  });
});
