import { configWith } from '@mailroom/config';
import { EVENT_STREAM } from '@mailroom/contracts';
import { OutboxRelay } from '@mailroom/outbox';
import { createTestDatabase, dropTestDatabase, eventually, PrivateNats, StallingProxy, startPrivateNats, startStallingProxy } from '@mailroom/testing';
import { connect, NatsConnection } from 'nats';
import { DataSource } from 'typeorm';
import { StreamPublisher } from '../src/stream-publisher';
import { appendTestEvents, createOutboxSchema } from './support/outbox-schema';

const SCHEMA = 'relay_host_lost';

/**
 * A relay whose host vanishes in the middle of a round (a node lost, a
 * network partition: no FIN, no RST), against real Postgres and a
 * nats-server of the suite's own. Its transaction holds the rows it claimed
 * (FOR UPDATE) until Postgres gives up on the session, and every other
 * replica skips them (SKIP LOCKED); Postgres's own TCP keepalive notices a
 * dead client only after about two hours.
 */
describe('the outbox relay when a replica vanishes mid-round', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let proxy: StallingProxy;
  let lostDataSource: DataSource;
  let nats: PrivateNats;
  let connection: NatsConnection;
  const relays: OutboxRelay[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: databaseUrl }).initialize();
    await createOutboxSchema(dataSource, SCHEMA);
    proxy = await startStallingProxy(databaseUrl);
    lostDataSource = await new DataSource({ type: 'postgres', url: proxy.url }).initialize();
    nats = await startPrivateNats();
    connection = await connect({ servers: nats.url });
  });

  afterAll(async () => {
    proxy?.resume();
    for (const relay of relays) await relay.onApplicationShutdown();
    await lostDataSource?.destroy().catch(() => undefined);
    await proxy?.close();
    await connection?.close();
    await nats?.destroy();
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  function startRelay(source: DataSource): OutboxRelay {
    const relay = new OutboxRelay(source, SCHEMA, configWith('emails', { NATS_URL: nats.url, OUTBOX_POLL_MS: '20', DATABASE_URL: databaseUrl }));
    relay.onApplicationBootstrap();
    relays.push(relay);
    return relay;
  }

  const unpublished = async (): Promise<number> => (await dataSource.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.outbox WHERE published_at IS NULL`))[0].n;

  it('lets another replica publish the rows it had claimed within seconds, not hours', async () => {
    // The first relay to publish stops there, with its rows locked, until the test lets it go.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let claimed!: () => void;
    const inRound = new Promise<void>((resolve) => (claimed = resolve));
    const publish = StreamPublisher.prototype.publish;
    const spy = jest.spyOn(StreamPublisher.prototype, 'publish').mockImplementationOnce(async function (this: StreamPublisher, ...args) {
      claimed();
      await held;
      return publish.apply(this, args);
    });

    const events = await appendTestEvents(dataSource, SCHEMA, 3);
    startRelay(lostDataSource);
    await inRound;
    spy.mockRestore();
    proxy.stall();

    startRelay(dataSource);
    try {
      await eventually(async () => (await unpublished()) === 0, 30_000, 200);
    } finally {
      release();
    }
    // Each event once: the lost relay's copies, sent when it is let go, are dropped as duplicates.
    expect((await (await connection.jetstreamManager()).streams.info(EVENT_STREAM)).state.messages).toBe(events.length);
  }, 60_000);
});
