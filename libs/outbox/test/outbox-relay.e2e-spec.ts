import { configWith } from '@mailroom/config';
import { EVENT_STREAM } from '@mailroom/contracts';
import { appendEvents, ORIGIN_HEADER, OutboxRelay } from '@mailroom/outbox';
import { createTestDatabase, dropTestDatabase, eventually, PrivateNats, startPrivateNats } from '@mailroom/testing';
import { connect, NatsConnection } from 'nats';
import { DataSource } from 'typeorm';
import { createOutboxSchema } from './support/outbox-schema';

const SCHEMA = 'outbox_test';

describe(OutboxRelay.name, () => {
  let databaseUrl: string;
  let nats: PrivateNats;
  let dataSource: DataSource;
  let relay: OutboxRelay;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    nats = await startPrivateNats();
    dataSource = await new DataSource({ type: 'postgres', url: databaseUrl }).initialize();
    await createOutboxSchema(dataSource, SCHEMA);
    relay = new OutboxRelay(dataSource, SCHEMA, configWith('emails', { NATS_URL: nats.url, OUTBOX_POLL_MS: '20', DATABASE_URL: databaseUrl }));
    relay.onApplicationBootstrap();
  });

  afterAll(async () => {
    await relay?.onApplicationShutdown();
    await dataSource?.destroy();
    await nats?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  async function streamMessages(): Promise<number> {
    const connection: NatsConnection = await connect({ servers: nats.url });
    try {
      return (await (await connection.jetstreamManager()).streams.info(EVENT_STREAM)).state.messages;
    } finally {
      await connection.close();
    }
  }

  async function unpublished(): Promise<number> {
    const [{ count }] = await dataSource.query(`SELECT count(*)::int AS count FROM ${SCHEMA}.outbox WHERE published_at IS NULL`);
    return count;
  }

  async function append(count: number, type = 'email.delivered') {
    return dataSource.transaction((manager) =>
      appendEvents(manager, SCHEMA, Array.from({ length: count }, (_, index) => ({ type, mode: 'live' as const, data: { n: index } }))),
    );
  }

  it('publishes committed events to the stream and marks them published', async () => {
    const events = await append(3);
    await eventually(async () => (await streamMessages()) === 3);
    // The relay marks rows published after JetStream's acks arrive, so this trails the stream a little.
    await eventually(async () => (await unpublished()) === 0);
    expect(await streamMessages()).toBe(3);
    expect(events.map((event) => event.id)).toEqual(expect.arrayContaining([expect.stringMatching(/^evt_/)]));
  });

  it('marks each event it publishes with the schema of its outbox, so its own service can tell it from an internal publisher\'s', async () => {
    const [event] = await append(1, 'email.clicked');
    await eventually(async () => (await unpublished()) === 0);
    const connection: NatsConnection = await connect({ servers: nats.url });
    try {
      const stored = await (await connection.jetstreamManager()).streams.getMessage(EVENT_STREAM, { last_by_subj: 'email.clicked' });
      expect(stored.json<{ id: string }>().id).toBe(event.id);
      expect(stored.header.get(ORIGIN_HEADER)).toBe(SCHEMA);
      expect(stored.header.get('Mailroom-Mode')).toBe('live');
    } finally {
      await connection.close();
    }
  });

  it('does not publish events whose transaction rolled back', async () => {
    const before = await streamMessages();
    await dataSource
      .transaction(async (manager) => {
        await appendEvents(manager, SCHEMA, [{ type: 'email.bounced', mode: 'live', data: {} }]);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await append(1);
    await eventually(async () => (await streamMessages()) === before + 1);
    const [{ total }] = await dataSource.query(`SELECT count(*)::int AS total FROM ${SCHEMA}.outbox`);
    expect(total).toBe(before + 1);
  });

  it('keeps events while NATS is down and publishes each exactly once after it returns', async () => {
    const before = await streamMessages();
    await nats.stop();
    await append(5);
    expect(await unpublished()).toBe(5);
    await nats.restart();
    await eventually(async () => (await streamMessages()) === before + 5, 20000);
    await eventually(async () => (await unpublished()) === 0);
    expect(await streamMessages()).toBe(before + 5);
  });

  it('deletes published events older than OUTBOX_RETENTION and keeps the rest', async () => {
    const events = await append(4);
    await eventually(async () => (await unpublished()) === 0);
    const [old, recent, ...rest] = events.map((event) => event.id);
    // Published two days ago (past the default 24h) vs. just now; and one that never went out. Every event so far
    // was created three days ago: as in life, an event was created before it was published, and in seq order.
    await dataSource.query(`UPDATE ${SCHEMA}.outbox SET created_at = now() - interval '3 days'`);
    await dataSource.query(`UPDATE ${SCHEMA}.outbox SET published_at = now() - interval '2 days' WHERE id = ANY($1::text[])`, [[old, ...rest]]);
    await dataSource.query(`UPDATE ${SCHEMA}.outbox SET published_at = NULL WHERE id = $1`, [rest[0]]);

    expect(await relay.purgePublished()).toBeGreaterThanOrEqual(2);

    const kept: Array<{ id: string }> = await dataSource.query(`SELECT id FROM ${SCHEMA}.outbox WHERE id = ANY($1::text[])`, [events.map((event) => event.id)]);
    expect(kept.map((row) => row.id).sort()).toEqual([recent, rest[0]].sort());
  });
});

/** The purge's cost, on a table of its own that no running relay touches. */
describe('OutboxRelay.purgePublished on a day of events', () => {
  const PURGE_SCHEMA = 'outbox_purge_test';
  let databaseUrl: string;
  let dataSource: DataSource;
  let relay: OutboxRelay;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    // One connection, so the statistics the purge's statements leave are that connection's to flush.
    dataSource = await new DataSource({ type: 'postgres', url: databaseUrl, poolSize: 1 }).initialize();
    await createOutboxSchema(dataSource, PURGE_SCHEMA);
    relay = new OutboxRelay(dataSource, PURGE_SCHEMA, configWith('emails', { DATABASE_URL: databaseUrl }));
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  /** Rows of the outbox read so far by scans of any kind, flushed from this connection first. */
  async function rowsRead(): Promise<number> {
    await dataSource.query('SELECT pg_stat_force_next_flush()');
    const [row] = await dataSource.query(
      `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS read FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'outbox'`,
      [PURGE_SCHEMA],
    );
    return Number(row.read);
  }

  it('reads the events old enough to go, not the whole day kept after them', async () => {
    const event = (name: string, age: string) =>
      `SELECT '${name}-' || n, 'email.delivered', 'live', '{}'::jsonb, now() - interval '${age}' + n * interval '1 ms', now() - interval '${age}' + n * interval '1 ms'`;
    const insert = `INSERT INTO ${PURGE_SCHEMA}.outbox (id, type, mode, data, created_at, published_at)`;
    await dataSource.query(`${insert} ${event('old', '2 days')} FROM generate_series(1, 3) AS n`);
    await dataSource.query(`${insert} ${event('recent', '20 hours')} FROM generate_series(1, 100000) AS n`);
    await dataSource.query(`ANALYZE ${PURGE_SCHEMA}.outbox`);
    const before = await rowsRead();

    expect(await relay.purgePublished()).toBe(3);

    expect(await rowsRead()).toBeLessThan(before + 1000);
    const [{ count }] = await dataSource.query(`SELECT count(*)::int AS count FROM ${PURGE_SCHEMA}.outbox`);
    expect(count).toBe(100000);
  });

  it('takes no bound from an event an app with its clock far ahead dated in the future', async () => {
    await dataSource.query(`TRUNCATE ${PURGE_SCHEMA}.outbox`);
    const insert = `INSERT INTO ${PURGE_SCHEMA}.outbox (id, type, mode, data, created_at, published_at) VALUES ($1, 'email.delivered', 'live', '{}', now() - $2::interval, now() - interval '2 days')`;
    await dataSource.query(insert, ['before', '3 days']);
    await dataSource.query(insert, ['from-a-clock-a-year-ahead', '-1 year']);
    await dataSource.query(insert, ['after', '3 days']);

    expect(await relay.purgePublished()).toBe(3);
  });
});
