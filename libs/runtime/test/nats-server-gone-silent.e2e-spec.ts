import { Events, NatsConnection } from 'nats';
import { PrivateNats, StallingProxy, startPrivateNats, startStallingProxy } from '@mailroom/testing';
import { connectNats, PING_INTERVAL_MS } from '../src/nats-options';

/** The most a connection may take to notice: two pings unanswered, found at the third. */
const NOTICED_WITHIN_MS = 3 * PING_INTERVAL_MS + 500;

/**
 * A NATS server whose node is lost, or cut off by a partition, sends no FIN or
 * RST: its clients' connections just go quiet. Only the client's pings tell,
 * and at nats.js's default (one every 2 minutes, two unanswered) an app
 * connected to that server of a three-node cluster stayed deaf for 4 to 6
 * minutes: no requests answered, none sent, no events, while the other
 * servers were up. It must notice within seconds and reconnect.
 */
describe('a NATS connection whose server went silent', () => {
  let nats: PrivateNats;
  let proxy: StallingProxy;
  let connection: NatsConnection | undefined;

  beforeAll(async () => {
    nats = await startPrivateNats();
    proxy = await startStallingProxy(nats.url);
  });

  afterAll(async () => {
    // The proxy first: closing a connection whose server is silent waits for it.
    await proxy?.close();
    await connection?.close().catch(() => undefined);
    await nats?.destroy();
  });

  it('notices within seconds, and reconnects once a server answers again', async () => {
    connection = await connectNats({ NATS_URL: proxy.url });
    const disconnected = new Promise<number>((resolve) => {
      void (async () => {
        for await (const status of connection!.status()) if (status.type === Events.Disconnect) return resolve(Date.now());
      })();
    });
    await connection.flush();
    const stalledAt = Date.now();
    proxy.stall();
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<number>((resolve) => (timer = setTimeout(() => resolve(Number.POSITIVE_INFINITY), NOTICED_WITHIN_MS)));
    const noticedAfter = (await Promise.race([disconnected, giveUp])) - stalledAt;
    clearTimeout(timer);
    expect(noticedAfter).toBeLessThanOrEqual(NOTICED_WITHIN_MS);

    proxy.resume();
    const subscription = connection.subscribe('silent.echo', { callback: (_, message) => message.respond(message.data) });
    const reply = await connection.request('silent.echo', new TextEncoder().encode('back'), { timeout: 20_000 });
    expect(new TextDecoder().decode(reply.data)).toBe('back');
    subscription.unsubscribe();
  }, 60_000);
});
