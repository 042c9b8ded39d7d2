import { EVENT_STREAM } from '@mailroom/contracts';
import { ensureEventStream } from '@mailroom/outbox';
import { eventually, NatsCluster, PrivateNats, startNatsCluster, startPrivateNats } from '@mailroom/testing';
import { connect, JetStreamManager, NatsConnection } from 'nats';

const replicasOf = async (manager: JetStreamManager) => (await manager.streams.info(EVENT_STREAM)).config.num_replicas;

/** EVENT_STREAM_REPLICAS against real nats-servers: one alone, and a cluster of three on loopback. */
describe('the event stream and EVENT_STREAM_REPLICAS', () => {
  describe('on a single server', () => {
    let nats: PrivateNats;
    let connection: NatsConnection;
    beforeAll(async () => {
      nats = await startPrivateNats();
      connection = await connect({ servers: nats.url });
    });
    afterAll(async () => {
      await connection?.close();
      await nats?.destroy();
    });

    it('refuses more than one copy, naming the setting', async () => {
      const manager = await connection.jetstreamManager();
      await expect(ensureEventStream(manager, 3)).rejects.toThrow(/^cannot set up the MAILROOM_EVENTS stream with EVENT_STREAM_REPLICAS=3: .*replicas > 1 not supported in non-clustered mode/);
      await ensureEventStream(manager, 1);
      expect(await replicasOf(manager)).toBe(1);
    });
  });

  describe('on a cluster of three', () => {
    let cluster: NatsCluster;
    let connection: NatsConnection;
    beforeAll(async () => {
      cluster = await startNatsCluster(3);
      connection = await connect({ servers: cluster.urls });
    }, 30_000);
    afterAll(async () => {
      await connection?.close();
      await cluster?.destroy();
    });

    it('scales a stream created with one copy up to three, never down, and keeps taking events when a server is lost', async () => {
      // The cluster elects its JetStream meta leader a moment after the servers are up.
      const manager = await eventually(() => connection.jetstreamManager(), 20_000);
      await eventually(() => ensureEventStream(manager, 1).then(() => true), 20_000);
      expect(await replicasOf(manager)).toBe(1);

      // Placing three copies needs all three servers in the JetStream group, which a loaded machine may take a while to form.
      await eventually(() => ensureEventStream(manager, 3).then(() => true), 20_000);
      expect(await replicasOf(manager)).toBe(3);
      await ensureEventStream(manager, 1);
      expect(await replicasOf(manager)).toBe(3);

      // Every server holds a copy once the new replicas caught up.
      await eventually(async () => {
        const info = await manager.streams.info(EVENT_STREAM);
        expect((info.cluster?.replicas ?? []).filter((replica) => replica.current)).toHaveLength(2);
        return true;
      }, 20_000);
      const leader = (await manager.streams.info(EVENT_STREAM)).cluster?.leader;
      await cluster.stopServer(Number(leader?.replace('mr-', '')));
      const ack = await eventually(() => connection.jetstream().publish('email.delivered', '{}', { msgID: 'after-a-server-was-lost', timeout: 2000 }), 20_000);
      expect(ack.stream).toBe(EVENT_STREAM);
    }, 60_000);
  });
});
