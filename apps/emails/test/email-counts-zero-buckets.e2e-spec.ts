import { DataSource } from 'typeorm';
import type { RequestContext } from '@mailroom/contracts';
import { encodeTime } from '@mailroom/database';
import { MigratedSchema, startMigratedSchema } from '@mailroom/testing';
import { EMAILS_SCHEMA } from '../src/database/data-source';
import { EMAIL_COUNTS_COMPACTION_LOCK } from '../src/emails/email-counts.compactor';
import { EmailCountsRepository } from '../src/emails/email-counts.repository';

const DAY = 86_400_000;

/**
 * The count buckets of emails that left them: a status bucket every email of
 * an hour moved out of (queued, once they are delivered), and every bucket of
 * emails EMAIL_RETENTION deleted. A bucket at 0 counts nothing, so none is
 * kept: with retention on, the count tables would otherwise grow for ever,
 * by a row per hour, status, domain, tag and pair of tags, as if nothing were deleted.
 */
describe('EmailCountsRepository.foldDeltas and buckets that reach 0', () => {
  let database: MigratedSchema;
  let dataSource: DataSource;
  let counts: EmailCountsRepository;
  let serial = 0;
  const ctx: RequestContext = { requestId: 'req_1', keyId: 'key_1', mode: 'live', permissions: ['*'], domainRestrictions: [] };

  const email = async (ageDays: number, tags: string[]): Promise<string> => {
    const id = `email_${encodeTime(Date.now() - ageDays * DAY)}${String(++serial).padStart(16, '0')}`;
    await dataSource.query(
      `INSERT INTO emails.emails (id, mode, api_key_id, from_address, from_email, from_domain, "to", to_addresses, subject, status, tags, message_id, created_at, updated_at)
       VALUES ($1, 'live', 'key_1', 'hi@a.test', 'hi@a.test', 'a.test', ARRAY['ann@example.com'], ARRAY['ann@example.com'], 'm', 'queued', $2,
               '<' || $1 || '@a.test>', now() - make_interval(days => $3), now())`,
      [id, tags, ageDays],
    );
    return id;
  };
  const fold = async () => expect(await counts.foldDeltas(EMAIL_COUNTS_COMPACTION_LOCK)).toBe(true);
  const bucketRows = async (where = 'true'): Promise<number> =>
    (await dataSource.query(`SELECT (SELECT count(*) FROM emails.email_counts WHERE ${where}) + (SELECT count(*) FROM emails.email_counts_hourly WHERE ${where}) AS n`))[0].n * 1;

  beforeAll(async () => {
    database = await startMigratedSchema(EMAILS_SCHEMA);
    dataSource = database.dataSource;
    counts = new EmailCountsRepository(dataSource);
  });

  afterAll(() => database?.destroy());

  it('drops the buckets a fold brings to 0 and keeps every count exact', async () => {
    const delivered = [await email(40, ['a', 'b']), await email(40, ['a'])];
    const stays = await email(2, ['a']);
    await fold();
    expect(await bucketRows('count = 0')).toBe(0);

    await dataSource.query(`UPDATE emails.emails SET status = 'delivered' WHERE id = ANY($1::text[])`, [delivered]);
    await fold();
    expect(await bucketRows(`status = 'queued' AND count = 0`)).toBe(0);
    expect(await counts.count(ctx, { status: 'queued' })).toBe(1);
    expect(await counts.count(ctx, { status: 'delivered', tags: ['a'] })).toBe(2);

    // As EMAIL_RETENTION deletes them.
    await dataSource.query(`DELETE FROM emails.emails WHERE id = ANY($1::text[])`, [delivered]);
    await fold();
    expect(await bucketRows('count = 0')).toBe(0);
    expect(await counts.count(ctx, {})).toBe(1);
    expect(await counts.count(ctx, { tags: ['a', 'b'] })).toBe(0);

    await dataSource.query(`DELETE FROM emails.emails WHERE id = $1`, [stays]);
    await fold();
    expect(await bucketRows()).toBe(0);
    expect(await counts.count(ctx, { tags: ['a'] })).toBe(0);
  });
});
