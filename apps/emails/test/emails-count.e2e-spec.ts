import { Client } from 'pg';
import { ulid } from '@mailroom/database';
import { ApiClient, eventually, startStack, Stack } from '@mailroom/testing';
import { EMAIL_COUNTS_COMPACTION_LOCK } from '../src/emails/email-counts.compactor';
import { emailBody, inOneDay } from './emails-api-fixtures';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const STATUSES = ['queued', 'sent', 'delivered', 'bounced', 'failed', 'scheduled', 'cancelled', 'suppressed'];
const DOMAINS = ['a.test', 'b.test', 'c.test'];
const TAG_SETS = [[], ['a'], ['b'], ['a', 'b'], ['c', 'a'], ['c', 'b', 'a']];

interface Shape {
  status?: string;
  tags?: string[];
  from?: number;
  to?: number;
}

/**
 * totalCount comes from bucket tables fed by triggers; these tests hold it
 * against count(*) over emails for every kind of filter, including date
 * ranges that cut days and hours, and while deltas are still pending.
 */
describe('GET /v1/emails totalCount', () => {
  let stack: Stack;
  let db: Client;
  const keys: { name: string; client: ApiClient; mode: string; domains: string[] | null }[] = [];
  // Rows start ten days ago at an odd minute, so ranges below cut days, hours and minutes.
  const base = Math.floor((Date.now() - 10 * DAY) / DAY) * DAY + 7 * HOUR + 13 * 60_000 + 517;

  const oracle = async (mode: string, domains: string[] | null, shape: Shape): Promise<number> => {
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM emails.emails
        WHERE mode = $1 AND ($2::text[] IS NULL OR from_domain = ANY($2)) AND ($3::text IS NULL OR status = $3)
          AND tags @> $4::text[] AND ($5::timestamptz IS NULL OR created_at >= $5) AND ($6::timestamptz IS NULL OR created_at < $6)`,
      [mode, domains, shape.status ?? null, shape.tags ?? [], iso(shape.from), iso(shape.to)],
    );
    return rows[0].n;
  };

  const apiCount = async (client: ApiClient, shape: Shape): Promise<number> => {
    const query = new URLSearchParams({ limit: '1' });
    if (shape.status) query.set('status', shape.status);
    if (shape.tags?.length) query.set('tags', shape.tags.join(','));
    if (shape.from !== undefined) query.set('from_date', new Date(shape.from).toISOString());
    if (shape.to !== undefined) query.set('to_date', new Date(shape.to).toISOString());
    const response = await client.get(`/v1/emails?${query}`);
    expect(response.status).toBe(200);
    return response.body.totalCount;
  };

  /** Every shape for every key, as "key shape: api ≠ oracle" lines, so one failure shows them all. */
  const mismatches = async (shapes: Shape[]): Promise<string[]> => {
    const wrong: string[] = [];
    for (const key of keys) {
      for (const shape of shapes) {
        const [api, expected] = [await apiCount(key.client, shape), await oracle(key.mode, key.domains, shape)];
        if (api !== expected) wrong.push(`${key.name} ${JSON.stringify(shape)}: ${api} ≠ ${expected}`);
      }
    }
    return wrong;
  };

  const pendingDeltas = async () => (await db.query('SELECT count(*)::int AS n FROM emails.email_count_deltas')).rows[0].n;

  beforeAll(async () => {
    stack = await startStack({ env: { RATE_LIMIT_PER_SECOND: '0' } });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    keys.push({ name: 'test', client: stack.api.withKey((await stack.issueKey({ mode: 'test' })).key), mode: 'test', domains: null });
    keys.push({ name: 'live', client: stack.api.withKey((await stack.issueKey({ mode: 'live' })).key), mode: 'live', domains: null });
    const restricted = (await stack.issueKey({ mode: 'live', domainRestrictions: ['b.test', 'c.test'] })).key;
    keys.push({ name: 'live b+c', client: stack.api.withKey(restricted), mode: 'live', domains: ['b.test', 'c.test'] });

    // 900 emails over ~10 days, inserted straight into the table (ids keep their creation time, as the API's do).
    for (let batch = 0; batch < 3; batch++) {
      const rows = Array.from({ length: 300 }, (_, j) => {
        const i = batch * 300 + j;
        const createdAt = base + i * 15 * 60_000 + ((i * 7919) % 600_000);
        const domain = DOMAINS[(i * 7) % 3];
        return { id: `email_${ulid(createdAt)}`, mode: i % 3 === 0 ? 'test' : 'live', domain, status: STATUSES[(i * 5) % 8], tags: TAG_SETS[i % 5], createdAt };
      });
      await db.query(
        `INSERT INTO emails.emails (id, mode, api_key_id, from_address, from_email, from_domain, "to", to_addresses, subject, status, tags, message_id, created_at, updated_at)
         SELECT r.id, r.mode, 'key_seed', 'hi@' || r.domain, 'hi@' || r.domain, r.domain, ARRAY['ann@example.com'], ARRAY['ann@example.com'],
                'seeded', r.status, ARRAY(SELECT jsonb_array_elements_text(r.tags)), '<' || r.id || '@' || r.domain || '>', r.created_at, r.created_at
           FROM jsonb_to_recordset($1::jsonb) AS r(id text, mode text, domain text, status text, tags jsonb, created_at timestamptz)`,
        [JSON.stringify(rows.map((row) => ({ ...row, created_at: new Date(row.createdAt).toISOString() })))],
      );
    }
  });
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const t1 = base + DAY + 3 * HOUR + 17 * 60_000 + 12_345;
  const t2 = base + 6 * DAY + 19 * HOUR + 44 * 60_000 + 1_500;
  const midnight = (ms: number) => Math.floor(ms / DAY) * DAY;
  const ranges: Pick<Shape, 'from' | 'to'>[] = [
    {},
    { from: t1 },
    { to: t2 },
    { from: t1, to: t2 },
    { from: midnight(base + 2 * DAY), to: midnight(base + 5 * DAY) },
    { from: midnight(base + 3 * DAY) + 2 * HOUR, to: midnight(base + 3 * DAY) + 9 * HOUR },
    { from: t1, to: t1 + 20 * 60_000 },
    { from: t1, to: t1 + 50 * 60_000 },
    { from: t1, to: t1 + DAY + 2 * HOUR },
  ];
  const shapes = (statuses: (string | undefined)[], tagFilters: (string[] | undefined)[]): Shape[] =>
    statuses.flatMap((status) => tagFilters.flatMap((tags) => ranges.map((range) => ({ status, tags, ...range }))));

  it('matches count(*) for every filter shape, mode and domain restriction', async () => {
    await eventually(async () => (await pendingDeltas()) === 0, 10000);
    expect(await mismatches(shapes([undefined, 'delivered', 'scheduled'], [undefined, ['a'], ['b', 'a'], ['a', 'c']]))).toEqual([]);
  });

  it('is exact right after sends, status changes and deletes, before and after compaction', async () => {
    const holder = new Client({ connectionString: stack.databaseUrl });
    await holder.connect();
    try {
      // Holding the compactor's lock keeps the new deltas pending.
      await holder.query('SELECT pg_advisory_lock($1)', [EMAIL_COUNTS_COMPACTION_LOCK]);
      const sent = [];
      for (const tags of [['a'], ['a', 'b'], []]) {
        const response = await keys[0].client.post('/v1/emails', emailBody({ from: 'hi@a.test', tags, scheduledAt: inOneDay() }));
        expect(response.status).toBe(202);
        sent.push(response.body.id);
      }
      expect((await keys[0].client.post(`/v1/emails/${sent[0]}/cancel`)).status).toBe(200);
      await db.query(`UPDATE emails.emails SET status = 'delivered' WHERE status = 'sent' AND from_domain = 'b.test'`);
      await db.query(`UPDATE emails.emails SET tags = array_append(tags, 'b') WHERE subject = 'seeded' AND tags = '{a}' AND mode = 'live'`);
      await db.query(`DELETE FROM emails.emails WHERE subject = 'seeded' AND status = 'failed' AND from_domain = 'c.test'`);
      expect(await pendingDeltas()).toBeGreaterThan(0);
      const recent = shapes([undefined, 'scheduled', 'cancelled', 'delivered', 'failed'], [undefined, ['a'], ['b']]).filter(
        (shape, index) => index % 3 === 0,
      );
      expect(await mismatches(recent)).toEqual([]);

      await holder.query('SELECT pg_advisory_unlock($1)', [EMAIL_COUNTS_COMPACTION_LOCK]);
      await eventually(async () => (await pendingDeltas()) === 0, 10000);
      expect(await mismatches(recent)).toEqual([]);
    } finally {
      await holder.end();
    }
  });

  it('counts a recipient or three-tags filter too (by scanning, as those are not bucketed)', async () => {
    const shape = { tags: ['a', 'b', 'c'] };
    expect(await apiCount(keys[1].client, shape)).toBe(await oracle('live', null, shape));
    const byRecipient = await keys[1].client.get('/v1/emails?to=ann@example.com&limit=1');
    expect(byRecipient.body.totalCount).toBe(await oracle('live', null, {}));
  });
});

function iso(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}
