import { DataSource } from 'typeorm';
import { MigratedSchema, startMigratedSchema } from '@mailroom/testing';
import { EMAILS_SCHEMA } from '../src/database/data-source';

const tablesIn = async (dataSource: DataSource): Promise<string[]> =>
  (
    await dataSource.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'emails' AND table_name <> 'migrations' ORDER BY 1`,
    )
  ).map((row: { table_name: string }) => row.table_name);

describe('emails schema migrations', () => {
  let database: MigratedSchema;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await startMigratedSchema(EMAILS_SCHEMA);
    dataSource = database.dataSource;
  });

  afterAll(() => database?.destroy());

  it('cancels the waiting recipients of emails cancelled before recipients could be', async () => {
    const insertEmail = (id: string, status: string) =>
      dataSource.query(
        `INSERT INTO emails.emails (id, mode, api_key_id, from_address, from_email, from_domain, "to", to_addresses, subject, status, message_id)
         VALUES ($1, 'live', 'key_1', 'hi@a.test', 'hi@a.test', 'a.test', ARRAY['ann@example.com'], ARRAY['ann@example.com'], 'm', $2, '<' || $1 || '@a.test>')`,
        [id, status],
      );
    const insertRecipient = (emailId: string, address: string, status: string) =>
      dataSource.query(`INSERT INTO emails.recipients (email_id, address, kind, status) VALUES ($1, $2, 'to', $3)`, [emailId, address, status]);
    await database.undoThrough('CancelRecipientsWithTheirEmail1763800000296');
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

  it('moves analytics counters kept under a misread from domain onto the domain from_domain stores', async () => {
    const count = (domain: string, metric: string, value: number, mode = 'live') =>
      dataSource.query(
        `INSERT INTO emails.analytics_counters (mode, bucket, domain, tag, metric, value) VALUES ($1, '2026-11-20T10:00:00Z', $2, '', $3, $4)`,
        [mode, domain, metric, value],
      );
    await database.undoThrough('CountAnalyticsUnderStoredFromDomains1763800000297');
    await count('xn--bcher-kva.de', 'sent', 1);
    await count('bücher.de', 'sent', 2);
    await count('bücher.de', 'delivered', 2);
    await count('bücher.de', 'sent', 5, 'test');
    await count('a.com (ann)', 'sent', 3);
    await count('*', 'sent', 6);
    await count('', 'complained', 1);
    await count('not an (address', 'sent', 4);
    await dataSource.runMigrations({ transaction: 'each' });

    const rows = await dataSource.query(`SELECT mode, domain, metric, value::int FROM emails.analytics_counters ORDER BY mode, domain COLLATE "C", metric`);
    expect(rows).toEqual([
      { mode: 'live', domain: '', metric: 'complained', value: 1 },
      { mode: 'live', domain: '*', metric: 'sent', value: 6 },
      { mode: 'live', domain: 'a.com', metric: 'sent', value: 3 },
      { mode: 'live', domain: 'not an (address', metric: 'sent', value: 4 },
      { mode: 'live', domain: 'xn--bcher-kva.de', metric: 'delivered', value: 2 },
      { mode: 'live', domain: 'xn--bcher-kva.de', metric: 'sent', value: 3 },
      { mode: 'test', domain: 'xn--bcher-kva.de', metric: 'sent', value: 5 },
    ]);
    await dataSource.query('TRUNCATE emails.analytics_counters');
  });

  it('creates every table of the emails schema, and every down() removes what its up() made', async () => {
    const mine = ['emails', 'idempotency_keys', 'mta_sts_policies', 'outbox', 'recipients', 'suppressions', 'tlsrpt_counts', 'tlsrpt_reports'];
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
