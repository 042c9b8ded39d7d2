import { batchDeleteStatement, encodeTime, runServiceMigrations, serviceDataSourceOptions } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase, queryPlan } from '@mailroom/testing';
import { DataSource } from 'typeorm';
import { EMAILS_SCHEMA } from '../src/database/data-source';
import { finishedEmailsBefore } from '../src/emails/email-retention';

const DAY = 86_400_000;

/**
 * The plan of one batch of EMAIL_RETENTION's purge on an analyzed table: a
 * catch-up purge (retention switched on over months of mail) runs thousands of
 * these, so each must read about the rows it deletes.
 */
describe('the email retention batch against Postgres', () => {
  let databaseUrl: string;
  let dataSource: DataSource;

  /** `count` delivered emails accepted, and their one recipient last changed, `ageDays` ago. */
  const emails = async (count: number, ageDays: number, suffix: string) => {
    const at = Date.now() - ageDays * DAY;
    await dataSource.query(
      `INSERT INTO emails.emails (id, mode, api_key_id, from_address, from_email, from_domain, "to", to_addresses, subject, status, tags, message_id, created_at, updated_at)
       SELECT 'email_' || $2 || $3 || lpad(n::text, 15, '0'), 'live', 'key_1', 'hi@a.test', 'hi@a.test', 'a.test', ARRAY['ann@example.com'], ARRAY['ann@example.com'],
              'm', 'delivered', '{}', '<' || $3 || n || '@a.test>', $4, $4
         FROM generate_series(1, $1) AS n`,
      [count, encodeTime(at), suffix, new Date(at)],
    );
    await dataSource.query(
      `INSERT INTO emails.recipients (email_id, address, kind, status, updated_at)
       SELECT id, 'ann@example.com', 'to', 'delivered', created_at FROM emails.emails WHERE id LIKE 'email_' || $1 || $2 || '%'`,
      [encodeTime(at), suffix],
    );
  };

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    await runServiceMigrations(databaseUrl, EMAILS_SCHEMA);
    dataSource = await new DataSource(serviceDataSourceOptions(databaseUrl, EMAILS_SCHEMA, { size: 1 })).initialize();
    // The count triggers are not what this reads, and would only slow the seeding.
    await dataSource.query('ALTER TABLE emails.emails DISABLE TRIGGER USER');
    await emails(60_000, 100, 'a');
    await emails(30_000, 1, 'b');
    await dataSource.query('ANALYZE emails.emails, emails.recipients');
  }, 120_000);

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  it("looks up each candidate email's recipients by its id, never reading the recipients table in search of recent changes", async () => {
    const batch = finishedEmailsBefore(Date.now() - 30 * DAY);
    const plan = await queryPlan(dataSource, batchDeleteStatement(batch), batch.parameters);

    expect(plan).not.toMatch(/Seq Scan on recipients/);
    expect(plan).toMatch(/Index (Only )?Scan using recipients_pkey on recipients r[^\n]*\n\s+Index Cond: \(email_id = emails(_\d+)?\.id\)/);
  });
});
