import { configWith } from '@mailroom/config';
import { EVENT_STREAM, EVENT_STREAM_SUBJECTS } from '@mailroom/contracts';
import { OutboxRelay } from '@mailroom/outbox';
import { createTestDatabase, dropTestDatabase, eventually, PrivateNats, startPrivateNats } from '@mailroom/testing';
import { connect, DiscardPolicy, NatsConnection, nanos, RetentionPolicy, StorageType, StreamConfig } from 'nats';
import { DataSource } from 'typeorm';
import { StreamPublisher } from '../src/stream-publisher';
import { appendTestEvents, createOutboxSchema } from './support/outbox-schema';

const SCHEMA = 'relay_failures';
/** More events than the relay reads in one round, so the rounds after the poison row's are exercised too. */
const BATCH_AND_MORE = 250;

/**
 * What the outbox relay does when something fails around a publish, against
 * real Postgres and a nats-server of each test's own. The stream is made by
 * the test first (ensureEventStream keeps an existing one), with a duplicate
 * window of a second instead of two minutes, so a republish "after the
 * window" takes seconds and any second publish of a row shows on the stream.
 */
describe('the outbox relay when publishing or marking fails', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let nats: PrivateNats | undefined;
  let connection: NatsConnection | undefined;
  const relays: OutboxRelay[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: databaseUrl }).initialize();
    await createOutboxSchema(dataSource, SCHEMA);
    // A switch for a database that refuses the relay's marking UPDATE, as a connection lost between the publish and the commit would.
    await dataSource.query(`CREATE TABLE ${SCHEMA}.marking_refused (refused boolean)`);
    await dataSource.query(`CREATE FUNCTION ${SCHEMA}.refuse_marking() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM ${SCHEMA}.marking_refused) THEN RAISE EXCEPTION 'database blip while marking'; END IF;
        RETURN NULL;
      END $$`);
    await dataSource.query(`CREATE TRIGGER refuse_marking BEFORE UPDATE ON ${SCHEMA}.outbox FOR EACH STATEMENT EXECUTE FUNCTION ${SCHEMA}.refuse_marking()`);
  });

  afterEach(async () => {
    for (const relay of relays.splice(0)) await relay.onApplicationShutdown();
    await connection?.close();
    await nats?.destroy();
    connection = undefined;
    nats = undefined;
    await dataSource.query(`DELETE FROM ${SCHEMA}.marking_refused`);
    await dataSource.query(`DELETE FROM ${SCHEMA}.outbox`);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  /** A private nats-server (with `serverConfig`, when given) whose event stream has a one-second duplicate window and `overrides`. */
  async function natsWithStream(overrides: Partial<StreamConfig> = {}, serverConfig?: string): Promise<NatsConnection> {
    nats = await startPrivateNats(serverConfig === undefined ? undefined : { config: serverConfig });
    connection = await connect({ servers: nats.url });
    await (await connection.jetstreamManager()).streams.add({
      name: EVENT_STREAM,
      subjects: EVENT_STREAM_SUBJECTS,
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      duplicate_window: nanos(1000),
      ...overrides,
    });
    return connection;
  }

  function startRelay(): OutboxRelay {
    const relay = new OutboxRelay(dataSource, SCHEMA, configWith('emails', { NATS_URL: nats!.url, OUTBOX_POLL_MS: '20', DATABASE_URL: databaseUrl }));
    relay.onApplicationBootstrap();
    relays.push(relay);
    return relay;
  }

  const append = (count: number, data?: (index: number) => object) => appendTestEvents(dataSource, SCHEMA, count, { data });

  const unpublished = async (): Promise<number> => (await dataSource.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.outbox WHERE published_at IS NULL`))[0].n;

  /** Every message on the stream, oldest first: its event id and its body. */
  async function streamContents(): Promise<Array<{ id: string; body: string }>> {
    const manager = await connection!.jetstreamManager();
    const { state } = await manager.streams.info(EVENT_STREAM);
    const contents: Array<{ id: string; body: string }> = [];
    for (let seq = state.first_seq; state.messages && seq <= state.last_seq; seq++) {
      const message = await manager.streams.getMessage(EVENT_STREAM, { seq });
      contents.push({ id: message.header.get('Nats-Msg-Id'), body: message.string() });
    }
    return contents;
  }

  const streamMessages = async (): Promise<number> => (await (await connection!.jetstreamManager()).streams.info(EVENT_STREAM)).state.messages;

  it('keeps a row it published but could not mark, and publishes it again: past the duplicate window the stream holds the same event twice, byte for byte', async () => {
    await natsWithStream();
    await dataSource.query(`INSERT INTO ${SCHEMA}.marking_refused VALUES (true)`);
    const events = await append(3);
    startRelay();

    // Published, then the marking failed and rolled back: the rows wait and go out again once the window has passed.
    await eventually(async () => (await streamMessages()) >= 6, 30000);
    expect(await unpublished()).toBe(3);

    await dataSource.query(`DELETE FROM ${SCHEMA}.marking_refused`);
    await eventually(async () => (await unpublished()) === 0, 15000);

    const contents = await streamContents();
    const ids = events.map((event) => event.id);
    expect(new Set(contents.map((message) => message.id))).toEqual(new Set(ids));
    for (const id of ids) {
      const copies = new Set(contents.filter((message) => message.id === id).map((message) => message.body));
      expect({ id, distinctBodies: copies.size }).toEqual({ id, distinctBodies: 1 });
    }
  });

  it('publishes each row once with two relays on one outbox: they claim different rows', async () => {
    await natsWithStream();
    // Counted where the relays hand rows to JetStream: a row both sent within the window would not show on the stream.
    const publishes = jest.spyOn(StreamPublisher.prototype, 'publish');
    const events = [...(await append(500)), ...(await append(500))];
    startRelay();
    startRelay();
    await eventually(async () => (await unpublished()) === 0, 30000);
    const published = publishes.mock.calls.map(([, , messageId]) => messageId);
    publishes.mockRestore();
    expect(published).toHaveLength(events.length);

    const contents = await streamContents();
    expect(contents).toHaveLength(events.length);
    expect(new Set(contents.map((message) => message.id))).toEqual(new Set(events.map((event) => event.id)));
  });

  it('keeps the rows the stream refused (a stream full with discard new) and publishes them once it takes messages again', async () => {
    await natsWithStream({ max_msgs: 2, discard: DiscardPolicy.New });
    const events = await append(5);
    startRelay();

    await eventually(async () => (await streamMessages()) === 2, 15000);
    // The relay keeps trying and failing: the three refused rows, at least, stay unpublished.
    expect(await unpublished()).toBeGreaterThanOrEqual(3);

    await (await connection!.jetstreamManager()).streams.update(EVENT_STREAM, { max_msgs: -1 });
    await eventually(async () => (await unpublished()) === 0, 15000);
    const ids = new Set((await streamContents()).map((message) => message.id));
    expect(ids).toEqual(new Set(events.map((event) => event.id)));
  });

  it('makes the stream again when it is gone while the relay stays connected (deleted, or a NATS server that lost its store)', async () => {
    await natsWithStream();
    startRelay();
    const [first] = await append(1);
    await eventually(async () => (await unpublished()) === 0, 15000);

    await (await connection!.jetstreamManager()).streams.delete(EVENT_STREAM);
    const [second] = await append(1);
    await eventually(async () => (await unpublished()) === 0, 20000);
    expect((await streamContents()).map((message) => message.id)).toEqual([second.id]);
    expect(first.id).not.toBe(second.id);
  });

  it.each([
    ['the stream refuses (larger than its max_msg_size)', { max_msg_size: 4096 }, undefined],
    ["the NATS server would never carry (larger than its max_payload, so nats.js refuses to send it)", {}, 'max_payload: 8192'],
  ])('publishes the events behind one %s, each once, and keeps that one waiting', async (_what, overrides: Partial<StreamConfig>, serverConfig?: string) => {
    await natsWithStream(overrides, serverConfig);
    const [poison] = await append(1, () => ({ blob: 'x'.repeat(20_000) }));
    const behind = [...(await append(3)), ...(await append(BATCH_AND_MORE))];
    startRelay();

    await eventually(async () => (await unpublished()) === 1, 20000);
    const [{ id: waiting }] = await dataSource.query(`SELECT id FROM ${SCHEMA}.outbox WHERE published_at IS NULL`);
    expect(waiting).toBe(poison.id);
    // Published once each: a round that failed for the poison row alone did not send its neighbours again.
    const contents = await streamContents();
    expect(contents.map((message) => message.id).sort()).toEqual(behind.map((event) => event.id).sort());
  });
});
