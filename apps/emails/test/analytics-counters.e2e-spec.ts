import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { runServiceMigrations, serviceDataSourceOptions } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { encodeTime } from '@mailroom/database';
import type { MailroomConfig } from '@mailroom/config';
import { APPLIED_EVENTS_RETENTION_MS } from '@mailroom/outbox';
import { AnalyticsProjector } from '../src/analytics/analytics-projector';
import { CounterIncrement, CountersRepository } from '../src/analytics/counters.repository';
import { EMAILS_SCHEMA } from '../src/database/data-source';

/**
 * The projector counts events in batches; these tests hold the batch write
 * to "each event id once", against real Postgres, including batches that
 * run at the same time and touch the same counter rows.
 */
describe('CountersRepository.applyMany', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let counters: CountersRepository;
  const at = new Date('2026-11-20T10:17:00Z');
  const DAY = 24 * 60 * 60 * 1000;
  let serial = 0;

  const increment = (overrides: Partial<CounterIncrement> = {}): CounterIncrement => ({
    eventId: `evt_test_${serial++}`,
    mode: 'live',
    at,
    domain: 'a.test',
    tags: ['welcome'],
    metrics: ['sent', 'delivered'],
    ...overrides,
  });

  const value = async (domain: string, tag: string, metric: string): Promise<number> => {
    const rows: Array<{ value: string }> = await dataSource.query(
      `SELECT value FROM emails.analytics_counters WHERE mode = 'live' AND bucket = '2026-11-20T10:00:00Z' AND domain = $1 AND tag = $2 AND metric = $3`,
      [domain, tag, metric],
    );
    return rows.length ? Number(rows[0].value) : 0;
  };

  /** A live email from a.test tagged welcome, with these recipients in these states; answers its id. */
  const liveEmailTo = async (idSuffix: string, status: string, recipients: Array<[address: string, status: string]>): Promise<string> => {
    const emailId = `email_${encodeTime(at.getTime())}${idSuffix}`;
    const to = recipients.map(([address]) => address);
    await dataSource.query(
      `INSERT INTO emails.emails (id, mode, api_key_id, from_address, from_email, from_domain, "to", to_addresses, subject, status, tags, message_id)
       VALUES ($1, 'live', 'key_1', 'hi@a.test', 'hi@a.test', 'a.test', $2, $2, 'm', $3, ARRAY['welcome'], $4)`,
      [emailId, to, status, `<${emailId}@a.test>`],
    );
    await dataSource.query(
      `INSERT INTO emails.recipients (email_id, address, kind, status) SELECT $1, address, 'to', status FROM unnest($2::text[], $3::text[]) AS r(address, status)`,
      [emailId, to, recipients.map(([, state]) => state)],
    );
    return emailId;
  };

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    await runServiceMigrations(databaseUrl, EMAILS_SCHEMA);
    dataSource = await new DataSource(serviceDataSourceOptions(databaseUrl, EMAILS_SCHEMA, { size: 8 })).initialize();
    counters = new CountersRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  beforeEach(async () => {
    await dataSource.query('TRUNCATE emails.analytics_counters, emails.analytics_applied_events');
  });

  it('counts each event id once, within a batch and across batches', async () => {
    const first = increment();
    const second = increment({ tags: ['welcome', 'promo', 'welcome'] });
    expect(await counters.applyMany([first, second, { ...first }])).toEqual([true, true, false]);
    expect(await counters.applyMany([{ ...second }, increment({ metrics: ['sent'] })])).toEqual([false, true]);

    expect(await value('a.test', '', 'sent')).toBe(3);
    expect(await value('a.test', '', 'delivered')).toBe(2);
    expect(await value('*', '', 'sent')).toBe(3);
    expect(await value('a.test', 'welcome', 'sent')).toBe(3);
    expect(await value('a.test', 'promo', 'delivered')).toBe(1);
    expect(await value('*', 'promo', 'sent')).toBe(1);
  });

  it('sums batches that run at once and share counter rows', async () => {
    const domains = ['a.test', 'b.test', 'c.test'];
    const batches = Array.from({ length: 6 }, (_, batch) =>
      Array.from({ length: 40 }, (_, index) => increment({ domain: domains[(batch + index) % 3], tags: index % 2 ? ['x', 'y'] : ['y'] })),
    );
    const results = await Promise.all(batches.map((batch) => counters.applyMany(batch)));

    expect(results.flat().every(Boolean)).toBe(true);
    expect(await value('*', '', 'sent')).toBe(240);
    expect(await value('*', 'x', 'delivered')).toBe(120);
    expect(await value('*', 'y', 'delivered')).toBe(240);
    expect((await value('a.test', '', 'sent')) + (await value('b.test', '', 'sent')) + (await value('c.test', '', 'sent'))).toBe(240);
  });

  it('counts each event once when two replicas apply the same events at the same time, in different orders, and neither batch fails', async () => {
    // A redelivery reaches another replica while the first copy is being counted, in whatever order the batches formed.
    for (let round = 0; round < 10; round++) {
      await dataSource.query('TRUNCATE emails.analytics_counters, emails.analytics_applied_events');
      const events = Array.from({ length: 200 }, () => increment({ tags: [] }));
      const results = await Promise.allSettled([counters.applyMany(events), counters.applyMany([...events].reverse())]);
      expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : result.status))).toEqual(['fulfilled', 'fulfilled']);
      const [first, second] = results.map((result) => (result as PromiseFulfilledResult<boolean[]>).value);
      // Each event applied by exactly one of the two.
      expect(first.filter((applied, index) => applied === second[events.length - 1 - index]).length).toBe(0);
      expect(await value('*', '', 'sent')).toBe(200);
    }
  });

  it("counts an internal publisher's event with a tag no send could carry, without that tag, rather than failing it on every redelivery", async () => {
    const projector = new AnalyticsProjector(counters, {} as MailroomConfig);
    // Longer than a btree entry can be (a third of a page): a counter row for it could never be written.
    const event = { id: 'evt_long_tag', type: 'email.delivered', createdAt: at.toISOString(), mode: 'live' as const, data: { from: 'x@a.test', tags: ['welcome', randomBytes(1500).toString('hex')] } };
    await projector.apply(event);
    expect(await value('a.test', '', 'delivered')).toBe(1);
    expect(await value('a.test', 'welcome', 'delivered')).toBe(1);
  });

  it("counts an internal publisher's event with a tag no send accepts once, in the all-emails row only: an empty tag is that row's own key", async () => {
    const projector = new AnalyticsProjector(counters, {} as MailroomConfig);
    await projector.apply({ id: 'evt_empty_tag', type: 'email.delivered', createdAt: at.toISOString(), mode: 'live', data: { from: 'x@a.test', tags: ['', 'with space', 'welcome'] } });
    expect(await value('a.test', '', 'delivered')).toBe(1);
    expect(await value('*', '', 'delivered')).toBe(1);
    expect(await value('a.test', 'welcome', 'delivered')).toBe(1);
    // A tag no send accepts, and no GET /v1/analytics?tags= can ask for: a row nobody reads.
    expect(await value('a.test', 'with space', 'delivered')).toBe(0);
  });

  it("counts an internal publisher's event with more tags or recipients than an email can have as the largest email, not one counter row per item", async () => {
    const projector = new AnalyticsProjector(counters, {} as MailroomConfig);
    const tags = Array.from({ length: 60 }, (_, index) => `tag${index}`);
    // Each recipient of the list times each tag made a row to write: a 1 MB event listing thousands of each built
    // millions in memory, failed, and came back on every redelivery.
    const recipients = Array.from({ length: 1000 }, (_, index) => `r${index}@example.com`);
    await projector.apply({ id: 'evt_many_items', type: 'email.suppressed', createdAt: at.toISOString(), mode: 'live', data: { from: 'x@a.test', tags, recipients } });
    const rows: Array<{ tags: string; suppressed: string }> = await dataSource.query(
      `SELECT count(DISTINCT tag) FILTER (WHERE tag <> '') AS tags, max(value) AS suppressed FROM emails.analytics_counters WHERE domain = 'a.test'`,
    );
    expect({ tags: Number(rows[0].tags), suppressed: Number(rows[0].suppressed) }).toEqual({ tags: 20, suppressed: 150 });
    // The first of them, as the event lists them.
    expect(await value('a.test', 'tag19', 'suppressed')).toBe(150);
    expect(await value('a.test', 'tag20', 'suppressed')).toBe(0);
  });

  it("counts as bounced only the reported bounces the emails app applies: not a 4xx (delayed) DSN, nor one naming no recipient", async () => {
    const projector = new AnalyticsProjector(counters, {} as MailroomConfig);
    const bounce = (id: string, data: Record<string, unknown>) =>
      projector.apply({ id, type: 'email.bounced', createdAt: at.toISOString(), mode: 'live', data: { from: 'x@a.test', ...data } });
    await bounce('evt_dsn_delayed', { recipient: 'later@example.com', smtp: { code: 451, reply: '451 4.4.1 still trying' } });
    await bounce('evt_dsn_nobody', { recipient: 'not an address', smtp: { code: 550 } });
    await bounce('evt_dsn_permanent', { recipient: 'gone@example.com', smtp: { code: 550, reply: '550 5.1.1 gone' } });
    // Mailroom's own, as delivery writes them: with no code when no server answered.
    await bounce('evt_own_bounce', { recipient: 'nomx@example.com', smtp: { code: null, reply: '5.7.0 no longer a sending domain' }, suppressed: false });
    expect(await value('a.test', '', 'bounced')).toBe(2);
  });

  it('counts no complaint for a reported email.complained naming no address, which the emails app ignores', async () => {
    const projector = new AnalyticsProjector(counters, {} as MailroomConfig);
    const complaint = (id: string, data: Record<string, unknown>) =>
      projector.apply({ id, type: 'email.complained', createdAt: at.toISOString(), mode: 'live', data: { from: 'x@a.test', ...data } });
    await complaint('evt_fbl_nobody', { recipient: 'not an address' });
    await complaint('evt_fbl_reader', { recipient: 'Reader <reader@example.com>' });
    await complaint('evt_fbl_summary_only', { to: ['only@example.com'] });
    expect(await value('a.test', '', 'complained')).toBe(2);
  });

  it('counts a complaint about an email only from one of its recipients, as the emails app marks it', async () => {
    const emailId = await liveEmailTo('COMPLAINEDOF0000', 'delivered', [['ann@example.com', 'delivered']]);
    const projector = new AnalyticsProjector(counters, {} as MailroomConfig);
    const complaint = (id: string, data: Record<string, unknown>, mode: 'live' | 'test' = 'live') =>
      projector.apply({ id, type: 'email.complained', createdAt: at.toISOString(), mode, data: Object.assign({ emailId }, data) });
    await complaint('evt_fbl_stranger', { recipient: 'mallory@example.com' });
    await complaint('evt_fbl_stranger_with_from', { recipient: 'mallory@example.com', from: 'hi@a.test' });
    await complaint('evt_fbl_other_mode', { recipient: 'ann@example.com' }, 'test');
    await complaint('evt_fbl_unknown_email', { recipient: 'ann@example.com', emailId: 'email_unknown' });
    expect(await value('a.test', '', 'complained')).toBe(0);
    await complaint('evt_fbl_reader_of_it', { recipient: 'Ann <ANN@example.com>' });
    expect(await value('a.test', '', 'complained')).toBe(1);
    expect(await value('a.test', 'welcome', 'complained')).toBe(1);
  });

  it('counts no complaint from a recipient the email never went to: suppressed, still waiting, or refused by the server', async () => {
    const emailId = await liveEmailTo('NEVERSENTTO00000', 'queued', [
      ['ann@example.com', 'sent'],
      ['listed@example.com', 'suppressed'],
      ['waiting@example.com', 'deferred'],
      ['refused@example.com', 'bounced'],
    ]);
    const projector = new AnalyticsProjector(counters, {} as MailroomConfig);
    const complaint = (id: string, recipient: string) =>
      projector.apply({ id, type: 'email.complained', createdAt: at.toISOString(), mode: 'live', data: { emailId, recipient } });
    await complaint('evt_fbl_listed', 'listed@example.com');
    await complaint('evt_fbl_waiting', 'waiting@example.com');
    await complaint('evt_fbl_refused', 'refused@example.com');
    expect(await value('a.test', '', 'complained')).toBe(0);
    // The one the relay took.
    await complaint('evt_fbl_sent', 'ann@example.com');
    expect(await value('a.test', '', 'complained')).toBe(1);
  });

  it('forgets applied-event ids only once they are older than the retention', async () => {
    const idAt = (ms: number, suffix: string) => `evt_${encodeTime(ms)}${suffix}`;
    const rows = [
      { id: idAt(Date.now() - 10 * DAY, 'OLD'), appliedDaysAgo: 10 },
      { id: idAt(Date.now() - 2 * DAY, 'RECENT'), appliedDaysAgo: 2 },
      // Another publisher's id sorting below ours, applied recently: its age, not its name, decides.
      { id: 'abc-foreign-recent', appliedDaysAgo: 1 },
      { id: 'abc-foreign-old', appliedDaysAgo: 10 },
      // Ids sorting above ours (the README lets a publisher use any printable id): a lower-case ULID, another prefix.
      // Bounded by the newest id of ours, the purge never reached them and they were kept for ever.
      { id: idAt(Date.now() - 10 * DAY, 'OLD').toLowerCase(), appliedDaysAgo: 10 },
      { id: 'fbl-foreign-old', appliedDaysAgo: 10 },
      { id: 'fbl-foreign-recent', appliedDaysAgo: 1 },
    ];
    for (const row of rows) {
      await dataSource.query(`INSERT INTO emails.analytics_applied_events (event_id, applied_at) VALUES ($1, now() - make_interval(days => $2))`, [row.id, row.appliedDaysAgo]);
    }

    expect(await counters.purgeAppliedEvents(APPLIED_EVENTS_RETENTION_MS)).toBe(4);

    const kept: Array<{ event_id: string }> = await dataSource.query('SELECT event_id FROM emails.analytics_applied_events ORDER BY event_id');
    expect(kept.map((row) => row.event_id)).toEqual(['abc-foreign-recent', rows[1].id, 'fbl-foreign-recent']);
    // An id still kept still makes its redelivery count for nothing.
    expect(await counters.applyMany([increment({ eventId: rows[1].id })])).toEqual([false]);
  });

  it('buckets and series are UTC hours and days when the server keeps another time zone', async () => {
    // A server set up in India (+05:30): its own hours begin at half past the UTC hour, and its days at 18:30 UTC.
    const elsewhere = await new DataSource({ ...serviceDataSourceOptions(databaseUrl, EMAILS_SCHEMA, { size: 1 }), extra: { max: 1, options: '-c TimeZone=Asia/Kolkata' } }).initialize();
    try {
      expect((await elsewhere.query('SHOW TimeZone'))[0].TimeZone).toBe('Asia/Kolkata');
      const counted = new CountersRepository(elsewhere);
      const lateEvening = new Date('2026-11-20T22:40:00Z');
      await counted.applyMany([increment(), increment({ at: lateEvening, metrics: ['sent'] })]);

      const buckets: Array<{ bucket: Date }> = await elsewhere.query(`SELECT DISTINCT bucket FROM emails.analytics_counters ORDER BY bucket`);
      expect(buckets.map((row) => row.bucket.toISOString())).toEqual(['2026-11-20T10:00:00.000Z', '2026-11-20T22:00:00.000Z']);

      const day = Date.parse('2026-11-20T00:00:00Z');
      const daily = await counted.series('live', new Date(day), new Date(day + 2 * DAY), 'day', null, []);
      expect(daily.map((row) => [Number(row.start), Number(row.sent)])).toEqual([[day, 2]]);
      const hourly = await counted.series('live', new Date('2026-11-20T10:30:00Z'), new Date('2026-11-20T23:00:00Z'), 'hour', ['a.test'], ['welcome']);
      expect(hourly.map((row) => [new Date(Number(row.start)).toISOString(), Number(row.sent), Number(row.delivered)]).sort()).toEqual([
        ['2026-11-20T10:00:00.000Z', 1, 1],
        ['2026-11-20T22:00:00.000Z', 1, 0],
      ]);
    } finally {
      await elsewhere.destroy();
    }
  });
});
