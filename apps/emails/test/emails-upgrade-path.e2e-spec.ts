import { DataSource } from 'typeorm';
import { MigratedSchema, startMigratedSchema } from '@mailroom/testing';
import { EMAILS_SCHEMA } from '../src/database/data-source';

interface OldEmail {
  id: string;
  mode: 'live' | 'test';
  status: string;
  domain: string;
  tags: string[];
  createdAt: string;
}

const STATUSES = ['scheduled', 'queued', 'sent', 'delivered', 'bounced', 'failed', 'cancelled', 'suppressed'];
const MANY_TAGS = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, '0')}`);

/** Emails as the first release stored them, with the edges the count buckets cut at. */
const OLD_EMAILS: OldEmail[] = [
  { id: 'email_01', mode: 'live', status: 'delivered', domain: 'a.test', tags: [], createdAt: '2026-11-20T10:00:00.000Z' },
  { id: 'email_02', mode: 'live', status: 'delivered', domain: 'a.test', tags: ['b', 'a'], createdAt: '2026-11-20T10:59:59.999Z' },
  { id: 'email_03', mode: 'live', status: 'bounced', domain: 'a.test', tags: ['a', 'a', 'b'], createdAt: '2026-11-20T11:00:00.000Z' },
  { id: 'email_04', mode: 'test', status: 'delivered', domain: 'a.test', tags: ['a'], createdAt: '2026-11-20T23:59:59.999Z' },
  { id: 'email_05', mode: 'live', status: 'queued', domain: 'xn--bcher-kva.test', tags: MANY_TAGS, createdAt: '2026-11-21T00:00:00.000Z' },
  { id: 'email_06', mode: 'live', status: 'cancelled', domain: '', tags: ['Z', 'a', 'B'], createdAt: '2026-11-21T00:30:00.000Z' },
  ...STATUSES.map((status, i) => ({ id: `email_1${i}`, mode: 'live' as const, status, domain: 'b.test', tags: ['x'], createdAt: '2026-11-19T05:15:00.000Z' })),
];

/** What email_counts_hourly must hold for these emails: one '' row, each tag and each sorted pair of distinct tags. */
function expectedHourly(emails: OldEmail[]): string[] {
  const counts = new Map<string, number>();
  for (const email of emails) {
    const hour = new Date(Math.floor(Date.parse(email.createdAt) / 3_600_000) * 3_600_000).toISOString();
    // Sorted as Postgres compares text in the test database (C collation): by code point.
    const tags = [...new Set(email.tags)].sort();
    const keys = ['', ...tags, ...tags.flatMap((a, i) => tags.slice(i + 1).map((b) => `${a} ${b}`))];
    for (const tag of keys) {
      const key = [email.mode, hour, email.status, email.domain, tag].join('|');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return [...counts].map(([key, count]) => `${key}|${count}`).sort();
}

/** A database at the first emails release, with rows in it, migrated to the latest: every data step holds for every row. */
describe('emails schema upgraded from its first release', () => {
  let database: MigratedSchema;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await startMigratedSchema(EMAILS_SCHEMA);
    dataSource = database.dataSource;
    await database.undoThrough('CreateAnalyticsCounters1763800000290');
    for (const email of OLD_EMAILS) {
      await dataSource.query(
        `INSERT INTO emails.emails (id, mode, api_key_id, from_address, from_email, from_domain, "to", to_addresses, subject, status, message_id, tags, created_at)
         VALUES ($1, $2, 'key_1', 'hi@' || $3, 'hi@' || $3, $3, ARRAY['ann@example.com'], ARRAY['ann@example.com'], 's', $4, '<' || $1 || '@x>', $5, $6)`,
        [email.id, email.mode, email.domain, email.status, email.tags, email.createdAt],
      );
      await dataSource.query(`INSERT INTO emails.recipients (email_id, address, kind, status) VALUES ($1, 'ann@example.com', 'to', $2)`, [
        email.id,
        email.status === 'cancelled' ? 'queued' : email.status === 'scheduled' ? 'queued' : email.status,
      ]);
    }
    await dataSource.query(
      `INSERT INTO emails.idempotency_keys (api_key_id, key, request_hash, response, status_code) VALUES ('key_1', 'k1', 'h', '{"object": "email", "id": "email_01"}', 200)`,
    );
    await dataSource.runMigrations({ transaction: 'each' });
  });

  afterAll(() => database?.destroy());

  it('counts every email it held in the hourly and daily buckets, edges of the hour and the day, repeated tags and twenty tags included', async () => {
    const hourly: Array<{ line: string }> = await dataSource.query(
      `SELECT concat_ws('|', mode, to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.000"Z"'), status, domain, tag, count) AS line FROM emails.email_counts_hourly`,
    );
    expect(hourly.map((row) => row.line).sort()).toEqual(expectedHourly(OLD_EMAILS));

    const [mismatch] = await dataSource.query(
      `SELECT count(*)::int AS rows FROM (
         SELECT mode, (hour AT TIME ZONE 'UTC')::date AS day, status, domain, tag, sum(count) AS count FROM emails.email_counts_hourly GROUP BY 1, 2, 3, 4, 5
         EXCEPT SELECT mode, day, status, domain, tag, count FROM emails.email_counts) differing`,
    );
    expect(mismatch.rows).toBe(0);
    const [{ days }] = await dataSource.query(`SELECT count(*)::int AS days FROM emails.email_counts WHERE tag = ''`);
    // 2026-11-19 (eight statuses), 20 live delivered/bounced, 20 test, 21 queued and cancelled.
    expect(days).toBe(8 + 2 + 1 + 2);
  });

  it("cancels the waiting recipient of the cancelled email and keeps the idempotent answer's text", async () => {
    const recipients = await dataSource.query(`SELECT email_id, status FROM emails.recipients WHERE email_id IN ('email_06', 'email_10') ORDER BY email_id`);
    expect(recipients).toEqual([
      { email_id: 'email_06', status: 'cancelled' },
      { email_id: 'email_10', status: 'queued' },
    ]);
    const [answer] = await dataSource.query(`SELECT response::text AS text, pg_typeof(response)::text AS type FROM emails.idempotency_keys WHERE key = 'k1'`);
    expect(answer).toEqual({ text: '{"id": "email_01", "object": "email"}', type: 'json' });
  });
});
