import { EVENT_STREAM } from '@mailroom/contracts';
import { ensureEventStream } from '@mailroom/outbox';
import { PrivateNats, startPrivateNats } from '@mailroom/testing';
import { connect, JetStreamManager, NatsConnection } from 'nats';

/**
 * An event stream someone made before Mailroom first started (an operator,
 * infrastructure as code), with subjects of their own, against a real
 * nats-server of the suite's own.
 */
describe('ensureEventStream on a stream made beforehand', () => {
  let nats: PrivateNats;
  let connection: NatsConnection;
  let manager: JetStreamManager;

  beforeAll(async () => {
    nats = await startPrivateNats();
    connection = await connect({ servers: nats.url });
    manager = await connection.jetstreamManager();
  });

  afterEach(async () => {
    await manager.streams.delete(EVENT_STREAM).catch(() => undefined);
  });

  afterAll(async () => {
    await connection?.close();
    await nats?.destroy();
  });

  const subjectsOf = async () => (await manager.streams.info(EVENT_STREAM)).config.subjects;

  it('adds the subjects the stream lacks, so domain events are taken, and keeps the ones it had', async () => {
    await manager.streams.add({ name: EVENT_STREAM, subjects: ['email.>', 'audit.>'] });
    await ensureEventStream(manager);

    expect([...(await subjectsOf())].sort()).toEqual(['audit.>', 'domain.>', 'email.>']);
    const ack = await connection.jetstream().publish('domain.verified', '{}', { msgID: 'domain-event-after-the-subject-was-added' });
    expect(ack.stream).toBe(EVENT_STREAM);
  });

  it('widens a subject narrower than one of ours (nats-server refuses overlapping subjects in one stream)', async () => {
    await manager.streams.add({ name: EVENT_STREAM, subjects: ['email.delivered', 'domain.*'] });
    await ensureEventStream(manager);

    expect([...(await subjectsOf())].sort()).toEqual(['domain.>', 'email.>']);
  });

  it('leaves a stream whose subjects already take every event as it is', async () => {
    await manager.streams.add({ name: EVENT_STREAM, subjects: ['audit.*', 'domain.>', 'email.>'] });
    await ensureEventStream(manager);

    expect(await subjectsOf()).toEqual(['audit.*', 'domain.>', 'email.>']);
  });
});
