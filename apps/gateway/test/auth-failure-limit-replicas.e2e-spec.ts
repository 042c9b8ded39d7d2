import { generateApiKey } from '@mailroom/auth';
import { decodeAuthFailure, encodeAuthFailure, GatewayEvents } from '@mailroom/contracts';
import { ApiResponse, eventually, GatewayProcess, startGatewayProcess, startStack, Stack } from '@mailroom/testing';
import { connect, NatsConnection } from 'nats';

const LIMIT = 6;
/** Its checksum is wrong, so the gateway refuses it (401) without asking the keys service. */
const TYPO_KEY = 'mr_typo';

/**
 * AUTH_FAILURE_LIMIT across two gateway replicas, each its own process, on
 * one NATS. Both trust 127.0.0.1 as a proxy, so X-Forwarded-For names the
 * client: each test plays a client of its own. The test listens on the
 * subject too, and publishes on it as a third party would.
 */
describe('failed authentications counted across gateway replicas', () => {
  let stack: Stack;
  let replicas: GatewayProcess[] = [];
  let bus: NatsConnection;
  const heard = new Map<string, number>();

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys'] });
    const env = { AUTH_FAILURE_LIMIT: String(LIMIT), TRUSTED_PROXIES: '127.0.0.1' };
    replicas = await Promise.all([startGatewayProcess(stack, env), startGatewayProcess(stack, env)]);
    bus = await connect({ servers: stack.nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    bus.subscribe(GatewayEvents.authenticationFailed, {
      callback: (error, message) => {
        const failure = error ? null : decodeAuthFailure(message.data);
        if (failure) heard.set(failure.address, (heard.get(failure.address) ?? 0) + 1);
      },
    });
    await bus.flush();
  }, 120000);
  afterAll(async () => {
    await bus?.close();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await stack?.stop();
  });

  const from = (replica: GatewayProcess, client: string, key: string) => replica.api.get('/v1/api-keys', { key, headers: { 'x-forwarded-for': client } });
  const fail = (replica: GatewayProcess, client: string) => from(replica, client, generateApiKey('live'));
  const statusesOnEach = async (client: string) => Promise.all(replicas.map(async (replica) => (await from(replica, client, stack.rootKey)).status));

  function expectBlocked(response: ApiResponse) {
    expect(response.status).toBe(429);
    expect(response.body.error).toEqual({ code: 'rate_limited', message: expect.stringMatching(/failed authentications/) });
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }

  let markers = 0;
  /**
   * Resolves once both replicas have counted whatever the bus carried before:
   * it publishes LIMIT failures of a client of its own and waits until both
   * replicas block it. NATS delivers to each subscriber in the order the
   * server received the messages, so what the server had before reached the
   * replicas first.
   */
  async function afterBothHeardAllSoFar(): Promise<void> {
    const marker = publishMarkerFailures();
    await eventually(async () => (await statusesOnEach(marker)).every((status) => status === 429), 15000);
  }

  /** Publishes LIMIT failures of a client address of the test's own, as a third replica would, and returns it. */
  function publishMarkerFailures(): string {
    markers += 1;
    const marker = `198.51.100.${markers}`;
    for (let index = 0; index < LIMIT; index += 1) bus.publish(GatewayEvents.authenticationFailed, encodeAuthFailure({ address: marker, failedAtMs: Date.now() }));
    return marker;
  }

  /** Waits until the server has carried `count` failures of `client` (the test sees them), then until both replicas have them. */
  async function afterBothHeard(client: string, count: number): Promise<void> {
    await eventually(() => heard.get(client) === count, 10000);
    await afterBothHeardAllSoFar();
  }

  it('blocks a client on both replicas, a valid key too, once its failures spread across them reach the limit, each counted once', async () => {
    const client = '203.0.113.1';
    for (let index = 0; index < LIMIT - 1; index += 1) expect((await fail(replicas[index % 2], client)).status).toBe(401);
    await afterBothHeard(client, LIMIT - 1);
    // The first replica saw 3 of the 5 itself: had it counted its own again when they came back over NATS, it would block.
    expect(await statusesOnEach(client)).toEqual([200, 200]);
    expect((await fail(replicas[1], client)).status).toBe(401);
    await eventually(async () => (await statusesOnEach(client)).every((status) => status === 429), 10000);
    for (const replica of replicas) expectBlocked(await from(replica, client, stack.rootKey));
  });

  it('ignores malformed messages on the subject, and goes on sharing', async () => {
    const client = '203.0.113.2';
    const malformed = [
      'not json',
      'null',
      '[]',
      '{}',
      JSON.stringify({ address: client }),
      JSON.stringify({ address: client, failedAtMs: 'now' }),
      JSON.stringify({ address: [client], failedAtMs: Date.now() }),
      JSON.stringify({ address: `${client}, 203.0.113.3`, failedAtMs: Date.now() }),
    ];
    for (let index = 0; index < LIMIT; index += 1) for (const text of malformed) bus.publish(GatewayEvents.authenticationFailed, new TextEncoder().encode(text));
    await afterBothHeardAllSoFar();
    expect(await statusesOnEach(client)).toEqual([200, 200]);
    expect(await statusesOnEach('203.0.113.3')).toEqual([200, 200]);
  });

  it('ignores failures from before the current minute, which a late message would otherwise turn into a block', async () => {
    const client = '203.0.113.4';
    for (let index = 0; index < LIMIT; index += 1) bus.publish(GatewayEvents.authenticationFailed, encodeAuthFailure({ address: client, failedAtMs: Date.now() - 61_000 }));
    await afterBothHeardAllSoFar();
    expect(await statusesOnEach(client)).toEqual([200, 200]);
  });

  it('counts failures where they happen while NATS is down, without waiting for it, and shares again once it is back', async () => {
    const client = '203.0.113.5';
    await stack.nats.stop();
    try {
      for (let index = 0; index < LIMIT; index += 1) expect((await from(replicas[0], client, TYPO_KEY)).status).toBe(401);
      // Refused before its key is looked at, so no NATS round trip is needed to tell it.
      expectBlocked(await from(replicas[0], client, stack.rootKey));
    } finally {
      await stack.nats.restart();
    }
    // Each replica reconnects on its own time: until both hear the bus again, a marker's failures block neither or one.
    await eventually(async () => {
      const marker = publishMarkerFailures();
      await bus.flush();
      return (await statusesOnEach(marker)).every((status) => status === 429);
    }, 30000);
    // The replicas' requests to the keys service reconnect on their own time too: 503 until then, which counts nothing.
    const after = '203.0.113.6';
    for (let index = 0; index < LIMIT; index += 1) await eventually(async () => (await fail(replicas[index % 2], after)).status === 401, 15000);
    await eventually(async () => (await statusesOnEach(after)).every((status) => status === 429), 15000);
  });
});
