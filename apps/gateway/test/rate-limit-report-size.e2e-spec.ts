import type { MailroomConfig } from '@mailroom/config';
import { decodeConsumptionReport, GatewayEvents } from '@mailroom/contracts';
import { eventually, PrivateNats, startPrivateNats } from '@mailroom/testing';
import { connect, NatsConnection } from 'nats';
import { RateLimiter } from '../src/rate-limit/rate-limiter';

/** More keys than one report of them fits in NATS's default max_payload (1 MB): about 35 bytes each. */
const KEYS = 40_000;

/**
 * A gateway replica reports what it let through every RATE_LIMIT_SYNC_MS, for
 * every key it served since the last report. Sent as one message, a report of
 * enough keys (tens of thousands of tenants, or a long sync interval) was
 * larger than the server's max_payload: nats.js threw from the sync timer,
 * which ended the gateway process, and the other replicas heard nothing.
 */
describe('rate-limit consumption reports of many keys', () => {
  let nats: PrivateNats;
  let listener: NatsConnection;
  let limiter: RateLimiter;

  beforeAll(async () => {
    nats = await startPrivateNats();
    listener = await connect({ servers: nats.url });
  });

  afterAll(async () => {
    await limiter?.onModuleDestroy();
    await listener?.close();
    await nats?.destroy();
  });

  it('reach the other replicas, every key, in reports each within the server\'s max_payload', async () => {
    const heard = new Set<string>();
    let largest = 0;
    listener.subscribe(GatewayEvents.rateLimitConsumed, {
      callback: (error, message) => {
        largest = Math.max(largest, message.data.length);
        for (const key of Object.keys(decodeConsumptionReport(message.data)?.counts ?? {})) heard.add(key);
      },
    });
    await listener.flush();
    const config = { NATS_URL: nats.url, RATE_LIMIT_PER_SECOND: 50, RATE_LIMIT_BURST: 100, RATE_LIMIT_SYNC_MS: 100 } as MailroomConfig;
    limiter = new RateLimiter(config);
    await limiter.onModuleInit();
    // All in one interval, as a busy replica serving that many keys lets them through.
    for (let index = 0; index < KEYS; index += 1) limiter.take(`key_${String(index).padStart(26, '0')}`);
    await eventually(() => heard.size === KEYS, 5000, 50);
    expect(largest).toBeLessThanOrEqual(listener.info!.max_payload);
  });
});
