import { DataSource } from 'typeorm';
import type { MailroomConfig } from '@mailroom/config';
import type { RequestContext } from '@mailroom/contracts';
import { encodeTime, runServiceMigrations, serviceDataSourceOptions } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { EMAILS_SCHEMA } from '../src/database/data-source';
import { EmailCountsRepository } from '../src/emails/email-counts.repository';
import { EmailRetention } from '../src/emails/email-retention';

const DAY = 86_400_000;
const RETENTION = 30 * DAY;

/** EMAIL_RETENTION's purge against real Postgres: what goes, what stays, and totalCount afterwards. */
describe('EmailRetention.purgeOlderThan', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let retention: EmailRetention;
  let serial = 0;
  const ctx: RequestContext = { requestId: 'req_1', keyId: 'key_1', mode: 'live', permissions: ['*'], domainRestrictions: [] };

  /** An email accepted `ageDays` ago (its id carries that time, as a real one does) and whose last delivery change (one recipient's) was `changedDaysAgo` ago. */
  const email = async (ageDays: number, status: string, tags: string[] = [], changedDaysAgo = ageDays): Promise<string> => {
    const id = `email_${encodeTime(Date.now() - ageDays * DAY)}${String(++serial).padStart(16, '0')}`;
    await dataSource.query(
      `INSERT INTO emails.emails (id, mode, api_key_id, from_address, from_email, from_domain, "to", to_addresses, subject, status, tags, message_id, created_at, updated_at)
       VALUES ($1, 'live', 'key_1', 'hi@a.test', 'hi@a.test', 'a.test', ARRAY['ann@example.com'], ARRAY['ann@example.com'], 'm', $2, $3,
               '<' || $1 || '@a.test>', now() - make_interval(days => $4), now() - make_interval(days => $5))`,
      [id, status, tags, ageDays, changedDaysAgo],
    );
    await dataSource.query(
      `INSERT INTO emails.recipients (email_id, address, kind, status, updated_at)
       VALUES ($1, 'ann@example.com', 'to', 'queued', now() - make_interval(days => $2)), ($1, 'bob@example.com', 'cc', 'queued', now() - make_interval(days => $3))`,
      [id, ageDays, changedDaysAgo],
    );
    return id;
  };
  const rowCount = async (sql: string): Promise<number> => (await dataSource.query(`SELECT count(*)::int AS n FROM ${sql}`))[0].n;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    await runServiceMigrations(databaseUrl, EMAILS_SCHEMA);
    dataSource = await new DataSource(serviceDataSourceOptions(databaseUrl, EMAILS_SCHEMA, { size: 2 })).initialize();
    retention = new EmailRetention(dataSource, { EMAIL_RETENTION: RETENTION } as MailroomConfig);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  it('deletes finished emails accepted before the retention, with their recipients, and keeps totalCount exact', async () => {
    const gone = [await email(45, 'delivered', ['a']), await email(40, 'sent'), await email(31, 'bounced', ['a', 'b']), await email(35, 'cancelled'), await email(50, 'suppressed'), await email(33, 'failed')];
    const kept = [await email(60, 'queued'), await email(45, 'scheduled'), await email(29, 'delivered', ['a']), await email(0, 'sent')];

    expect(await retention.purgeOlderThan(RETENTION)).toBe(gone.length);

    const remaining = (await dataSource.query(`SELECT id FROM emails.emails ORDER BY id`)).map((row: { id: string }) => row.id);
    expect(remaining).toEqual([...kept].sort());
    expect(await rowCount(`emails.recipients WHERE email_id = ANY('{${gone.join(',')}}'::text[])`)).toBe(0);
    expect(await rowCount(`emails.recipients`)).toBe(kept.length * 2);

    const counts = new EmailCountsRepository(dataSource);
    expect(await counts.count(ctx, {})).toBe(kept.length);
    expect(await counts.count(ctx, { status: 'delivered' })).toBe(1);
    expect(await counts.count(ctx, { tags: ['a'] })).toBe(1);
    expect(await retention.purgeOlderThan(RETENTION)).toBe(0);
  });

  it('keeps a finished email accepted before the retention until its last delivery change is as old: one scheduled far ahead, or retried for days, is not deleted as soon as it is sent', async () => {
    const openedYesterday = await email(45, 'delivered', [], 31);
    await dataSource.query(`UPDATE emails.emails SET opens = opens + 1, updated_at = now() - interval '1 day' WHERE id = $1`, [openedYesterday]);
    const sentYesterday = await email(45, 'delivered', [], 1);
    const failedAfterRetries = await email(32, 'failed', [], 3);
    const longFinished = await email(45, 'delivered', [], 31);

    // An open is no delivery change: it does not keep an email for longer.
    expect(await retention.purgeOlderThan(RETENTION)).toBe(2);

    const remaining = (await dataSource.query(`SELECT id FROM emails.emails WHERE id = ANY($1::text[]) ORDER BY id`, [[sentYesterday, failedAfterRetries, longFinished, openedYesterday]])).map(
      (row: { id: string }) => row.id,
    );
    expect(remaining).toEqual([sentYesterday, failedAfterRetries].sort());
  });
  it('purges once with two replicas purging at the same time: neither fails on a deadlock, and each email goes once', async () => {
    await dataSource.query('DELETE FROM emails.emails');
    const old = 2_500;
    const cutoffId = `email_${encodeTime(Date.now() - 40 * DAY)}`;
    await dataSource.query(
      `INSERT INTO emails.emails (id, mode, api_key_id, from_address, from_email, from_domain, "to", to_addresses, subject, status, tags, message_id, created_at, updated_at)
       SELECT $2 || lpad(n::text, 16, '0'), 'live', 'key_1', 'hi@a.test', 'hi@a.test', 'a.test', ARRAY['ann@example.com'], ARRAY['ann@example.com'], 'm', 'delivered', '{}',
              '<' || n || '@a.test>', now() - interval '40 days', now() - interval '40 days'
         FROM generate_series(1, $1) AS n`,
      [old, cutoffId],
    );
    await dataSource.query(
      `INSERT INTO emails.recipients (email_id, address, kind, status, updated_at)
       SELECT id, a, 'to', 'delivered', now() - interval '40 days' FROM emails.emails, unnest(ARRAY['ann@example.com', 'bob@example.com']) AS a`,
    );
    const other = new EmailRetention(dataSource, { EMAIL_RETENTION: RETENTION } as MailroomConfig);

    const deleted = await Promise.all([retention.purgeOlderThan(RETENTION), other.purgeOlderThan(RETENTION)]);

    expect(deleted[0] + deleted[1]).toBe(old);
    expect(await rowCount('emails.emails')).toBe(0);
    expect(await rowCount('emails.recipients')).toBe(0);
  });
});
