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

  it('creates every table of the emails schema, and down() removes them so up() can run again', async () => {
    const all = ['emails', 'idempotency_keys', 'outbox', 'recipients', 'suppressions'];
    expect(await tablesIn(dataSource)).toEqual(all);
    await dataSource.undoLastMigration({ transaction: 'each' });
    expect(await tablesIn(dataSource)).toEqual([]);
    await dataSource.runMigrations({ transaction: 'each' });
    expect(await tablesIn(dataSource)).toEqual(all);
  });
});
