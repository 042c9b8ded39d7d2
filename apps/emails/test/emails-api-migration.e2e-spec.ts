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

  it('cancels the waiting recipients of emails cancelled before recipients could be', async () => {
    const insertEmail = (id: string, status: string) =>
      dataSource.query(
        `INSERT INTO emails.emails (id, mode, api_key_id, from_address, from_email, from_domain, "to", to_addresses, subject, status, message_id)
         VALUES ($1, 'live', 'key_1', 'hi@a.test', 'hi@a.test', 'a.test', ARRAY['ann@example.com'], ARRAY['ann@example.com'], 'm', $2, '<' || $1 || '@a.test>')`,
        [id, status],
      );
    const insertRecipient = (emailId: string, address: string, status: string) =>
      dataSource.query(`INSERT INTO emails.recipients (email_id, address, kind, status) VALUES ($1, $2, 'to', $3)`, [emailId, address, status]);
    await dataSource.undoLastMigration({ transaction: 'each' });
    await insertEmail('email_cancelled', 'cancelled');
    await insertRecipient('email_cancelled', 'ann@example.com', 'queued');
    await insertRecipient('email_cancelled', 'bob@example.com', 'suppressed');
    await insertEmail('email_queued', 'queued');
    await insertRecipient('email_queued', 'ann@example.com', 'queued');
    await dataSource.runMigrations({ transaction: 'each' });

    const rows = await dataSource.query(`SELECT email_id, address, status FROM emails.recipients ORDER BY email_id, address`);
    expect(rows).toEqual([
      { email_id: 'email_cancelled', address: 'ann@example.com', status: 'cancelled' },
      { email_id: 'email_cancelled', address: 'bob@example.com', status: 'suppressed' },
      { email_id: 'email_queued', address: 'ann@example.com', status: 'queued' },
    ]);
    await dataSource.query(`TRUNCATE emails.emails CASCADE`);
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
