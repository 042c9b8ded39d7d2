import { DataSource } from 'typeorm';
import { runServiceMigrations, serviceDataSourceOptions } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { EMAILS_SCHEMA } from '../src/database/data-source';

const tablesIn = async (dataSource: DataSource): Promise<string[]> =>
  (
    await dataSource.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'emails' AND table_name <> 'migrations' ORDER BY 1`,
    )
  ).map((row: { table_name: string }) => row.table_name);

describe('emails schema migrations', () => {
  let databaseUrl: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    await runServiceMigrations(databaseUrl, EMAILS_SCHEMA);
    dataSource = new DataSource(serviceDataSourceOptions(databaseUrl, EMAILS_SCHEMA, 1));
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  it('creates every table of the emails schema, and every down() removes what its up() made', async () => {
    const mine = ['emails', 'idempotency_keys', 'outbox', 'recipients', 'suppressions'];
    const created = await tablesIn(dataSource);
    expect(created).toEqual(expect.arrayContaining(mine));
    // Undo every migration after the one that creates the schema itself.
    const migrationCount = (EMAILS_SCHEMA.migrations as unknown[]).length;
    for (let i = 1; i < migrationCount; i++) await dataSource.undoLastMigration({ transaction: 'each' });
    expect(await tablesIn(dataSource)).toEqual([]);
    await dataSource.runMigrations({ transaction: 'each' });
    expect(await tablesIn(dataSource)).toEqual(created);
  });
});
