import { Logger } from '@nestjs/common';
import { EVENT_STREAM, EventEnvelope } from '@mailroom/contracts';
import { consumeEvents, ensureEventStream, NotYetError, ORIGIN_HEADER, RunningConsumer } from '@mailroom/outbox';
import { eventually, PrivateNats, startPrivateNats } from '@mailroom/testing';
import { connect, headers, nanos, NatsConnection } from 'nats';

const envelope = (n: number, overrides: Record<string, unknown> = {}) => ({
  id: `evt_consumer_test_${n}`,
  type: 'email.delivered',
  createdAt: new Date().toISOString(),
  mode: 'live',
  data: { n },
  ...overrides,
});

/** consumeEvents against a real JetStream: what an internal publisher's bad event does to the consumer. */
describe(consumeEvents.name, () => {
  let nats: PrivateNats;
  let connection: NatsConnection;
  let consumer: RunningConsumer | undefined;
  let publishedCount = 0;

  beforeAll(async () => {
    nats = await startPrivateNats();
    connection = await connect({ servers: nats.url });
    await ensureEventStream(await connection.jetstreamManager());
  });

  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
  });

  afterAll(async () => {
    await connection?.close();
    await nats?.destroy();
  });

  /**
   * A publish right after the stream was deleted and made again. In one CI run under load, this suite's publishes
   * were answered no responders (503) from the test that first deletes and remakes the stream on, each test after it
   * failing too; it did not happen again in repeated runs. So the publish is tried until the new stream takes it, as
   * the outbox relays retry theirs, and the tests after start with a stream known to take publishes. A 503 stores
   * nothing; should a retry ever follow a publish that was stored, the event would be handled twice and the test's
   * exact list of handled events would fail.
   */
  async function publishToRecreatedStream(subject: string, payload: string): Promise<void> {
    await eventually(() => publish(subject, payload).then(() => true), 20_000);
  }

  async function publish(subject: string, payload: string, origin?: string): Promise<void> {
    const messageHeaders = headers();
    if (origin) messageHeaders.set(ORIGIN_HEADER, origin);
    await connection.jetstream().publish(subject, payload, { msgID: `msg-${++publishedCount}`, headers: messageHeaders });
  }

  async function consumerState(durable: string) {
    const info = await (await connection.jetstreamManager()).consumers.info(EVENT_STREAM, durable);
    return { pending: info.num_pending, ackPending: info.num_ack_pending, redelivered: info.num_redelivered };
  }

  it('drops events no handler could apply, and still hands over the good ones around them', async () => {
    const handled: EventEnvelope[] = [];
    const poison = [
      'not json',
      '[]',
      JSON.stringify(envelope(90, { createdAt: '9999-99-99' })),
      JSON.stringify(envelope(91, { data: null })),
      JSON.stringify(envelope(92, { mode: 'prod' })),
      JSON.stringify(envelope(93, { data: { tags: ['nul\u0000'] } })),
    ];
    await publish('email.delivered', JSON.stringify(envelope(1)));
    for (const payload of poison) await publish('email.delivered', payload);
    await publish('email.delivered', JSON.stringify(envelope(2, { mode: undefined })));

    consumer = await consumeEvents({
      nats: { NATS_URL: nats.url },
      durable: 'poison-test',
      filterSubject: 'email.delivered',
      handle: async (event) => void handled.push(event),
    });

    await eventually(() => handled.length === 2);
    expect(handled.map((event) => [event.id, event.mode])).toEqual([
      ['evt_consumer_test_1', 'live'],
      ['evt_consumer_test_2', 'live'],
    ]);
    // Terminated, not left to be redelivered: nothing stays pending or waits for an ack.
    await eventually(async () => {
      const state = await consumerState('poison-test');
      return state.pending === 0 && state.ackPending === 0 ? state : undefined;
    });
    expect((await consumerState('poison-test')).redelivered).toBe(0);
  });

  it('drops an event whose type is not the subject it was published on, which each consumer would read as another kind', async () => {
    const handled: string[] = [];
    // As the bounce consumer (filtering email.bounced) applied a complaint published there as a bounce while webhooks
    // were told of a complaint. A subject of its own: the other tests' consumers read every event of theirs.
    await publish('email.cancelled', JSON.stringify(envelope(95, { type: 'email.complained' })));
    await publish('email.cancelled', JSON.stringify(envelope(96, { type: 'email.cancelled' })));
    consumer = await consumeEvents({
      nats: { NATS_URL: nats.url },
      durable: 'mismatch-test',
      filterSubject: 'email.cancelled',
      handle: async (event) => void handled.push(event.id),
    });
    await eventually(async () => {
      const state = await consumerState('mismatch-test');
      return handled.includes('evt_consumer_test_96') && state.pending === 0 && state.ackPending === 0 ? state : undefined;
    });
    expect(handled).toEqual(['evt_consumer_test_96']);
    expect((await consumerState('mismatch-test')).redelivered).toBe(0);
  });

  it('acks every event of a burst handled many at a time, so none is redelivered', async () => {
    const handled = new Map<string, number>();
    for (let n = 100; n < 400; n++) await publish('email.opened', JSON.stringify(envelope(n, { type: 'email.opened' })));
    consumer = await consumeEvents({
      nats: { NATS_URL: nats.url },
      durable: 'burst-test',
      filterSubject: 'email.opened',
      // Handlers finishing together, as a batched write releases them: their acks leave in one loop turn.
      handle: async (event) => {
        await new Promise((resolve) => setImmediate(resolve));
        handled.set(event.id, (handled.get(event.id) ?? 0) + 1);
      },
      concurrency: 50,
    });
    await eventually(async () => {
      const state = await consumerState('burst-test');
      return handled.size === 300 && state.pending === 0 && state.ackPending === 0 ? state : undefined;
    });
    expect((await consumerState('burst-test')).redelivered).toBe(0);
    expect([...handled.values()].every((count) => count === 1)).toBe(true);
  });

  it('takes no more events than bufferBytes holds while its handlers are busy, and handles each once', async () => {
    // 40 events of about 300 KB (internal services may publish up to NATS max_payload, 1 MB): over five budgets.
    const bufferBytes = 2 * 1024 * 1024;
    const filler = 'x'.repeat(300_000);
    const payloads = Array.from({ length: 40 }, (_, index) => JSON.stringify(envelope(500 + index, { type: 'email.clicked', data: { filler } })));
    for (const payload of payloads) await publish('email.clicked', payload);
    const handled = new Map<string, number>();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    consumer = await consumeEvents({
      nats: { NATS_URL: nats.url },
      durable: 'buffer-bytes-test',
      filterSubject: 'email.clicked',
      handle: async (event) => {
        await released;
        handled.set(event.id, (handled.get(event.id) ?? 0) + 1);
      },
      concurrency: 200,
      bufferBytes,
    });
    // Every handler waits: what the consumer took stays in memory. It has taken all it will once three reads agree.
    const readings: number[] = [];
    await eventually(async () => {
      readings.push((await consumerState('buffer-bytes-test')).ackPending);
      const last = readings.slice(-3);
      return last.length === 3 && last[0] > 0 && last.every((value) => value === last[0]);
    }, 15000, 300);
    expect(readings[readings.length - 1]).toBeLessThanOrEqual(Math.floor(bufferBytes / Buffer.byteLength(payloads[0])));
    release();
    await eventually(async () => {
      const state = await consumerState('buffer-bytes-test');
      return handled.size === payloads.length && state.pending === 0 && state.ackPending === 0;
    }, 30000);
    expect([...handled.values()].every((count) => count === 1)).toBe(true);
  });

  it('redelivers an event whose handler must wait (NotYetError) or failed, until it succeeds, warning of the failure only', async () => {
    const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const debugLines = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
    const about = (spy: jest.SpyInstance) => spy.mock.calls.filter(([details]) => details?.eventId === 'evt_consumer_test_3');
    try {
      let calls = 0;
      await publish('email.bounced', JSON.stringify(envelope(3, { type: 'email.bounced' })));
      consumer = await consumeEvents({
        nats: { NATS_URL: nats.url },
        durable: 'retry-test',
        filterSubject: 'email.bounced',
        handle: async () => {
          calls += 1;
          if (calls === 1) throw new NotYetError('waits on an attempt not yet written');
          if (calls === 2) throw new Error('database unavailable');
        },
      });
      await eventually(async () => calls === 3 && (await consumerState('retry-test')).ackPending === 0, 15_000);
      expect(calls).toBe(3);
      // The expected wait is no fault: at debug, so a warning is a failure an operator must look at.
      expect(about(debugLines)).toEqual([[expect.objectContaining({ err: 'waits on an attempt not yet written', attempt: 1 }), 'event waits on something not yet done; redelivering later']]);
      expect(about(warnings)).toEqual([[expect.objectContaining({ err: 'database unavailable', attempt: 2 }), 'event handler failed; redelivering later']]);
    } finally {
      warnings.mockRestore();
      debugLines.mockRestore();
    }
  });

  it('keeps redelivering an event whose handler always fails, without holding back the events behind it', async () => {
    const handled: string[] = [];
    let poisonAttempts = 0;
    await publish('email.sent', JSON.stringify(envelope(700, { type: 'email.sent' })));
    for (let n = 701; n <= 703; n++) await publish('email.sent', JSON.stringify(envelope(n, { type: 'email.sent' })));
    consumer = await consumeEvents({
      nats: { NATS_URL: nats.url },
      durable: 'always-failing-test',
      filterSubject: 'email.sent',
      handle: async (event) => {
        if (event.id !== 'evt_consumer_test_700') return void handled.push(event.id);
        poisonAttempts += 1;
        throw new Error('this event can never be applied');
      },
    });
    // One after another in stream order, yet the failing first one does not stop the next three.
    await eventually(() => handled.length === 3 && poisonAttempts >= 2, 15_000);
    expect(handled).toEqual(['evt_consumer_test_701', 'evt_consumer_test_702', 'evt_consumer_test_703']);
    // Neither dropped nor acked: it stays the one message waiting for an ack.
    const state = await consumerState('always-failing-test');
    expect({ pending: state.pending, ackPending: state.ackPending }).toEqual({ pending: 0, ackPending: 1 });
  });

  it('does not hand a handler slower than AckWait the same event again while it is still working', async () => {
    const calls = new Map<string, number>();
    let finished = 0;
    await publish('email.queued', JSON.stringify(envelope(800, { type: 'email.queued' })));
    await publish('email.queued', JSON.stringify(envelope(801, { type: 'email.queued' })));
    consumer = await consumeEvents({
      nats: { NATS_URL: nats.url },
      durable: 'slow-handler-test',
      filterSubject: 'email.queued',
      ackWaitMs: 1000,
      handle: async (event) => {
        calls.set(event.id, (calls.get(event.id) ?? 0) + 1);
        // Three ack waits long, as a handler waiting on a lock or a slow database would be.
        await new Promise((resolve) => setTimeout(resolve, 3000));
        finished += 1;
      },
    });
    await eventually(async () => {
      const state = await consumerState('slow-handler-test');
      return finished >= 2 && state.pending === 0 && state.ackPending === 0 ? state : undefined;
    }, 30_000);
    expect(Object.fromEntries(calls)).toEqual({ evt_consumer_test_800: 1, evt_consumer_test_801: 1 });
    expect((await consumerState('slow-handler-test')).redelivered).toBe(0);
  });

  it('gives a durable made under another ack wait (EVENT_ACK_WAIT_MS changed) this one, keeping what it had acked', async () => {
    await publish('email.scheduled', JSON.stringify(envelope(820, { type: 'email.scheduled' })));
    const handled: string[] = [];
    const options = { nats: { NATS_URL: nats.url }, durable: 'ack-wait-change-test', filterSubject: 'email.scheduled', handle: async (event: EventEnvelope) => void handled.push(event.id) };
    consumer = await consumeEvents({ ...options, ackWaitMs: 30_000 });
    await eventually(async () => handled.length === 1 && (await consumerState('ack-wait-change-test')).ackPending === 0);
    await consumer.stop();
    consumer = await consumeEvents({ ...options, ackWaitMs: 4000 });
    const ackWait = async () => (await (await connection.jetstreamManager()).consumers.info(EVENT_STREAM, 'ack-wait-change-test')).config.ack_wait;
    await eventually(async () => (await ackWait()) === nanos(4000), 5000).catch(() => undefined);
    expect(await ackWait()).toBe(nanos(4000));
    await publish('email.scheduled', JSON.stringify(envelope(821, { type: 'email.scheduled' })));
    await eventually(() => handled.length === 2);
    expect(handled).toEqual(['evt_consumer_test_820', 'evt_consumer_test_821']);
  });

  it('acknowledges, without handling, the events the outbox of the service named in skipPublishedBy published', async () => {
    const handled: string[] = [];
    await publish('email.complained', JSON.stringify(envelope(500, { type: 'email.complained' })), 'emails');
    await publish('email.complained', JSON.stringify(envelope(501, { type: 'email.complained' })));
    await publish('email.complained', JSON.stringify(envelope(502, { type: 'email.complained' })), 'domains');
    consumer = await consumeEvents({
      nats: { NATS_URL: nats.url },
      durable: 'origin-test',
      filterSubject: 'email.complained',
      skipPublishedBy: 'emails',
      handle: async (event) => void handled.push(event.id),
    });
    await eventually(async () => {
      const state = await consumerState('origin-test');
      return handled.length === 2 && state.pending === 0 && state.ackPending === 0 ? state : undefined;
    });
    expect(handled).toEqual(['evt_consumer_test_501', 'evt_consumer_test_502']);
    expect((await consumerState('origin-test')).redelivered).toBe(0);
  });

  it('starts a durable created with startAtCreation after the events already on the stream', async () => {
    const handled: string[] = [];
    await publish('email.failed', JSON.stringify(envelope(600, { type: 'email.failed' })));
    consumer = await consumeEvents({
      nats: { NATS_URL: nats.url },
      durable: 'start-test',
      filterSubject: 'email.failed',
      startAtCreation: true,
      handle: async (event) => void handled.push(event.id),
    });
    // consumeEvents creates the durable in the background; publish once it exists.
    await eventually(async () => (await connection.jetstreamManager()).consumers.info(EVENT_STREAM, 'start-test').then(() => true, () => false));
    await publish('email.failed', JSON.stringify(envelope(601, { type: 'email.failed' })));
    await eventually(async () => {
      const state = await consumerState('start-test');
      return handled.length === 1 && state.pending === 0 && state.ackPending === 0 ? state : undefined;
    });
    expect(handled).toEqual(['evt_consumer_test_601']);
  });

  it('makes a startAtCreation durable that went with its stream again from the new stream\'s first event, but one deleted alone from the next', async () => {
    const handled: string[] = [];
    const refused: string[] = [];
    const held = 'evt_consumer_test_1000';
    const manager = await connection.jetstreamManager();
    const durableExists = () => manager.consumers.info(EVENT_STREAM, 'lost-start-test').then(() => true, () => false);
    consumer = await consumeEvents({
      nats: { NATS_URL: nats.url },
      durable: 'lost-start-test',
      filterSubject: 'email.delivery_delayed',
      startAtCreation: true,
      // The held event is never acknowledged, so it stays on the stream for whichever durable reads from before it.
      handle: async (event) => {
        if (event.id !== held) return void handled.push(event.id);
        refused.push(event.id);
        throw new NotYetError('held on the stream by this test');
      },
    });
    await eventually(durableExists);
    // On the stream before the durable is made again, for certain: its first durable has seen it. (Published after
    // the deletion instead, it raced the consumer making the durable again, and under load once came after it.)
    await publish('email.delivery_delayed', JSON.stringify(envelope(1000, { type: 'email.delivery_delayed' })));
    await eventually(() => refused.includes(held), 15_000);

    // Only the durable deleted (by an operator, say): the stream still holds the held event.
    await manager.consumers.delete(EVENT_STREAM, 'lost-start-test');
    await eventually(durableExists, 15_000);
    await publish('email.delivery_delayed', JSON.stringify(envelope(1001, { type: 'email.delivery_delayed' })));
    await eventually(() => handled.includes('evt_consumer_test_1001'), 15_000);
    // Made again from the next event: the new durable has delivered 1001 alone, not the held event before it.
    expect((await manager.consumers.info(EVENT_STREAM, 'lost-start-test')).delivered.consumer_seq).toBe(1);

    // The stream lost and made anew: what reached the new stream before the durable is handled too.
    await manager.streams.delete(EVENT_STREAM);
    await ensureEventStream(manager);
    await publishToRecreatedStream('email.delivery_delayed', JSON.stringify(envelope(1002, { type: 'email.delivery_delayed' })));
    await eventually(() => handled.includes('evt_consumer_test_1002'), 30_000);
    expect(handled).toEqual(['evt_consumer_test_1001', 'evt_consumer_test_1002']);
  }, 60_000);

  it('takes up again after a NATS restart that kept its store', async () => {
    const handled: string[] = [];
    consumer = await consumeEvents({
      nats: { NATS_URL: nats.url },
      durable: 'restart-test',
      filterSubject: 'email.clicked',
      handle: async (event) => void handled.push(event.id),
    });
    await publish('email.clicked', JSON.stringify(envelope(950, { type: 'email.clicked' })));
    await eventually(() => handled.includes('evt_consumer_test_950'), 15_000);

    await nats.restart();
    await eventually(async () => {
      await publish('email.clicked', JSON.stringify(envelope(951, { type: 'email.clicked' })));
      return true;
    }, 20_000);
    await eventually(() => handled.includes('evt_consumer_test_951'), 60_000);
  }, 90_000);

  it('takes up again when the stream was deleted and made anew (a NATS server back without its store)', async () => {
    const handled: string[] = [];
    consumer = await consumeEvents({
      nats: { NATS_URL: nats.url },
      durable: 'recreated-test',
      filterSubject: 'email.opened',
      handle: async (event) => void handled.push(event.id),
    });
    await publish('email.opened', JSON.stringify(envelope(900, { type: 'email.opened' })));
    await eventually(() => handled.includes('evt_consumer_test_900'), 15_000);

    const manager = await connection.jetstreamManager();
    await manager.streams.delete(EVENT_STREAM);
    // As an outbox relay makes it again when its publishes find no stream.
    await ensureEventStream(manager);
    await publishToRecreatedStream('email.opened', JSON.stringify(envelope(901, { type: 'email.opened' })));
    await eventually(() => handled.includes('evt_consumer_test_901'), 60_000);
  }, 90_000);
});
