import { Client } from 'pg';
import { connect, NatsConnection, nanos } from 'nats';
import { EVENT_STREAM } from '@mailroom/contracts';
import { eventually, scrapeMetrics, Stack, startStack } from '@mailroom/testing';
import { DISPATCHER_CONSUMER, MAX_UNACKED_EVENTS } from '../src/dispatch/dispatcher-consumer';
import { EventPublisher } from './support/event-publisher';
import { WebhookFixtures } from './support/webhook-fixtures';
import { WebhookReceiver } from './support/webhook-receiver';

const BACKLOG = MAX_UNACKED_EVENTS + 500;
/** EVENT_BUFFER_BYTES: far above the small events' backlog (1,000 of about 300 bytes), below a run of large ones. */
const BUFFER_BYTES = 4 * 1024 * 1024;
/** EVENT_ACK_WAIT_MS: shorter than the default 30 s, so the scenario that outlasts it is short too. */
const ACK_WAIT_MS = 6000;

/**
 * A backlog on the stream (a first start, catching up after an outage) while
 * fan-out is slow. JetStream redelivers an event not acked within the ack
 * wait, and time an event waits in the dispatcher's queue counts: the
 * dispatcher must take no more events than it fans out well within it, and
 * of large events (internal services may publish up to NATS max_payload, 1 MB)
 * no more than EVENT_BUFFER_BYTES.
 */
describe('the webhook dispatcher catching up on a backlog of events', () => {
  let stack: Stack;
  let nats: NatsConnection;
  let events: EventPublisher;
  let fixtures: WebhookFixtures;
  let receiver: WebhookReceiver;
  let database: Client;

  beforeAll(async () => {
    stack = await startStack({
      apps: ['keys', 'webhook-dispatcher', 'gateway'],
      env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50', EVENT_BUFFER_BYTES: String(BUFFER_BYTES), EVENT_ACK_WAIT_MS: String(ACK_WAIT_MS) },
    });
    nats = await connect({ servers: stack.nats.url });
    events = await EventPublisher.connect(stack.nats.url);
    fixtures = new WebhookFixtures(stack);
    receiver = await new WebhookReceiver().start();
    database = new Client({ connectionString: stack.databaseUrl });
    await database.connect();
  });

  afterAll(async () => {
    await database?.end();
    await receiver?.stop();
    await events?.close();
    await nats?.close();
    await stack?.stop();
  });

  async function consumerState(): Promise<{ unacked: number; undelivered: number; redelivered: number; maxAckPending: number; ackWait: number }> {
    const info = await (await nats.jetstreamManager()).consumers.info(EVENT_STREAM, DISPATCHER_CONSUMER);
    return { unacked: info.num_ack_pending, undelivered: info.num_pending, redelivered: info.num_redelivered, maxAckPending: info.config.max_ack_pending ?? -1, ackWait: info.config.ack_wait ?? -1 };
  }

  /** The unacked events once the dispatcher has taken all it will: three reads in a row agree, and `ready` holds. */
  async function unackedOnceSettled(ready: (state: Awaited<ReturnType<typeof consumerState>>) => boolean): Promise<number> {
    const readings: number[] = [];
    await eventually(async () => {
      const state = await consumerState();
      readings.push(state.unacked);
      const last = readings.slice(-3);
      return ready(state) && last.length === 3 && last.every((value) => value === last[0]);
    }, 20000, 200);
    return readings[readings.length - 1];
  }

  it('holds at most MAX_UNACKED_EVENTS unacked while fan-out cannot write, also on a consumer made with the old window, and then sends each event once', async () => {
    // An installation whose consumer an earlier version created, with a window of 10,000 events and the 30 s ack wait.
    await stack.stopApp('webhook-dispatcher');
    await (await nats.jetstreamManager()).consumers.update(EVENT_STREAM, DISPATCHER_CONSUMER, { max_ack_pending: 10_000, ack_wait: nanos(30_000) });
    await stack.startApp('webhook-dispatcher');
    expect(await consumerState()).toMatchObject({ maxAckPending: MAX_UNACKED_EVENTS, ackWait: nanos(ACK_WAIT_MS) });

    await fixtures.create(receiver.url(), ['email.delivered']);
    // Fan-out inserts wait for this lock: the database is as slow as it gets.
    await database.query('BEGIN');
    await database.query('LOCK TABLE webhooks.deliveries IN EXCLUSIVE MODE');
    const published: string[] = [];
    try {
      for (let index = 0; index < BACKLOG; index += 1) published.push((await events.publish('email.delivered')).id);
      // Every event is on the stream, and the dispatcher has taken all it will.
      expect(await unackedOnceSettled((state) => state.unacked + state.undelivered === BACKLOG)).toBe(MAX_UNACKED_EVENTS);
    } finally {
      await database.query('COMMIT');
    }

    await eventually(() => new Set(receiver.eventIds()).size === BACKLOG, 60000);
    expect(receiver.eventIds().sort()).toEqual(published.sort());
    await eventually(async () => (await consumerState()).unacked === 0);
  });

  it('keeps the events it holds from being redelivered while fan-out is blocked for longer than the ack wait, and sends each once', async () => {
    // An endpoint and event kind of its own, so the backlog above does not reach it.
    const endpoint = await new WebhookReceiver().start();
    try {
      await fixtures.create(endpoint.url(), ['email.bounced']);
      await database.query('BEGIN');
      await database.query('LOCK TABLE webhooks.deliveries IN EXCLUSIVE MODE');
      const published: string[] = [];
      try {
        for (let index = 0; index < 3; index += 1) published.push((await events.publish('email.bounced')).id);
        await eventually(async () => (await consumerState()).unacked === 3, 15_000);
        // The scenario itself: fan-out stays blocked until the ack wait of every event has run out one and a half times.
        const blockedUntil = Date.now() + ACK_WAIT_MS * 1.5;
        await eventually(() => Date.now() > blockedUntil, ACK_WAIT_MS * 2, 1000);
        expect((await consumerState()).redelivered).toBe(0);
      } finally {
        await database.query('COMMIT');
      }
      await eventually(() => new Set(endpoint.eventIds()).size === 3, 30_000);
      expect(endpoint.eventIds().sort()).toEqual(published.sort());
      await eventually(async () => (await consumerState()).unacked === 0);
    } finally {
      await endpoint.stop();
    }
  }, ACK_WAIT_MS * 4);

  it('takes no more large events than EVENT_BUFFER_BYTES holds while fan-out cannot write, and then sends each once', async () => {
    // An endpoint and event kind of its own; 60 events of about 300 KB are over four budgets.
    const endpoint = await new WebhookReceiver().start();
    const filler = 'x'.repeat(300_000);
    try {
      await fixtures.create(endpoint.url(), ['email.opened']);
      await database.query('BEGIN');
      await database.query('LOCK TABLE webhooks.deliveries IN EXCLUSIVE MODE');
      const published: string[] = [];
      let eventBytes = 0;
      try {
        for (let index = 0; index < 60; index += 1) {
          const envelope = await events.publish('email.opened', 'live', { filler });
          published.push(envelope.id);
          eventBytes = Buffer.byteLength(JSON.stringify(envelope));
        }
        expect(await unackedOnceSettled((state) => state.unacked > 0)).toBeLessThanOrEqual(Math.floor(BUFFER_BYTES / eventBytes));
      } finally {
        await database.query('COMMIT');
      }
      await eventually(() => new Set(endpoint.eventIds()).size === published.length, 60_000);
      expect(endpoint.eventIds().sort()).toEqual(published.sort());
      await eventually(async () => (await consumerState()).unacked === 0);
      const peak = (await scrapeMetrics(stack.opsUrl('webhook-dispatcher'))).value('mailroom_webhook_event_buffer_peak_bytes');
      expect(peak).toBeGreaterThanOrEqual(eventBytes);
      expect(peak).toBeLessThanOrEqual(BUFFER_BYTES);
    } finally {
      await endpoint.stop();
    }
  });
});
