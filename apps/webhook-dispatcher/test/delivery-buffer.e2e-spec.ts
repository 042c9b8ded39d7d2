import { eventually, scrapeMetrics } from '@mailroom/testing';
import { webhookSuite } from './support/webhook-suite';

/** WEBHOOK_DELIVERY_BUFFER_BYTES: room for five of the events below, where the count alone would let 20 be held (10 per endpoint, twice). */
const BUFFER_BYTES = 1024 * 1024;
const EVENTS = 30;

/**
 * A backlog of large deliveries (internal services may publish events up to
 * NATS max_payload, 1 MB) to an endpoint that holds every request open: the
 * dispatcher claims no more payload bytes than its delivery buffer, and once
 * the endpoint answers, every delivery is sent, each once.
 */
describe('webhook delivery of a backlog of large events', () => {
  const suite = webhookSuite({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_POLL_MS: '50',
    // The held requests must not turn the endpoint slow (after a quarter of this) while the test watches the claims.
    WEBHOOK_TIMEOUT_MS: '60000',
    WEBHOOK_DELIVERY_BUFFER_BYTES: String(BUFFER_BYTES),
  });

  it('holds at most WEBHOOK_DELIVERY_BUFFER_BYTES of payloads, and sends every delivery once', async () => {
    suite.receiver.reply = () => 'hold';
    const hook = await suite.fixtures.create(suite.receiver.url(), ['email.opened']);
    const filler = 'x'.repeat(200_000);
    const published: string[] = [];
    let payloadBytes = 0;
    for (let index = 0; index < EVENTS; index += 1) {
      const envelope = await suite.events.publish('email.opened', 'live', { filler });
      published.push(envelope.id);
      payloadBytes = Buffer.byteLength(JSON.stringify(envelope));
    }

    // Every delivery is written, and the dispatcher has claimed all it will while the endpoint holds its requests.
    const readings: number[] = [];
    await eventually(async () => {
      const { rows, leased } = await suite.fixtures.leased(hook.id);
      readings.push(leased);
      const last = readings.slice(-5);
      return rows === EVENTS && leased > 0 && last.length === 5 && last.every((value) => value === last[0]);
    }, 20_000, 200);
    expect(readings[readings.length - 1]).toBeLessThanOrEqual(Math.floor(BUFFER_BYTES / payloadBytes));

    suite.receiver.reply = () => ({ status: 200 });
    suite.receiver.release();
    await eventually(() => new Set(suite.receiver.eventIds()).size === EVENTS, 60_000);
    expect(suite.receiver.eventIds().sort()).toEqual(published.sort());
    await eventually(async () => (await suite.fixtures.leased(hook.id)).leased === 0);
    const deliveries = await suite.fixtures.deliveries(hook.id);
    expect(deliveries.map((delivery) => [delivery.status, delivery.attempts])).toEqual(Array(EVENTS).fill(['succeeded', 1]));

    const peak = (await scrapeMetrics(suite.stack.opsUrl('webhook-dispatcher'))).value('mailroom_webhook_delivery_pool_peak_bytes');
    expect(peak).toBeGreaterThanOrEqual(payloadBytes);
    expect(peak).toBeLessThanOrEqual(BUFFER_BYTES);
  }, 120_000);
});
