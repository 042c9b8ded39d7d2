import { EventEnvelope } from '@mailroom/contracts';
import { ensureEventStream } from '@mailroom/outbox';
import { connect, headers, JetStreamClient, NatsConnection, PubAck } from 'nats';
import { ulid } from '@mailroom/database';

/** One ULID per run plus a counter: unique ids without 26 random characters per event, which would load the publisher. */
const RUN = ulid();

/**
 * Publishes email.delivered envelopes straight onto the event stream, the way
 * an internal service does (and the outbox relays: Nats-Msg-Id = event id).
 * Each envelope's createdAt is the moment it was published, and that moment is
 * also kept here with millisecond precision for the latency figures.
 */
export class StreamPublisher {
  /** Event id → publish time (ms since epoch). */
  readonly publishedAt = new Map<string, number>();
  private sequence = 0;
  private constructor(
    private readonly connection: NatsConnection,
    private readonly jetstream: JetStreamClient,
  ) {}

  static async connect(natsUrl: string): Promise<StreamPublisher> {
    const connection = await connect({ servers: natsUrl });
    await ensureEventStream(await connection.jetstreamManager());
    return new StreamPublisher(connection, connection.jetstream());
  }

  /** Starts one publish and returns its id and the stream's acknowledgement. */
  publishOne(): { id: string; ack: Promise<PubAck> } {
    const now = Date.now();
    const envelope: EventEnvelope = {
      id: `evt_${RUN}${(this.sequence += 1).toString().padStart(8, '0')}`,
      type: 'email.delivered',
      createdAt: new Date(now).toISOString(),
      mode: 'live',
      data: { emailId: `email_${RUN}${this.sequence.toString().padStart(8, '0')}`, from: 'bench@bench.test', to: ['delivered@example.com'], subject: 'Benchmark', tags: [] },
    };
    const messageHeaders = headers();
    messageHeaders.set('Mailroom-Mode', 'live');
    this.publishedAt.set(envelope.id, now);
    return { id: envelope.id, ack: this.jetstream.publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id, headers: messageHeaders }) };
  }

  /** As fast as the stream acknowledges, `window` publishes in flight at a time. */
  async burst(count: number, window = 500): Promise<string[]> {
    const ids: string[] = [];
    while (ids.length < count) {
      const chunk = Array.from({ length: Math.min(window, count - ids.length) }, () => this.publishOne());
      await Promise.all(chunk.map((item) => item.ack));
      ids.push(...chunk.map((item) => item.id));
    }
    return ids;
  }

  /** `perSecond` events for `seconds`, published in 10 ms ticks so the offered load is even. */
  async paced(perSecond: number, seconds: number): Promise<string[]> {
    const total = Math.round(perSecond * seconds);
    const ids: string[] = [];
    const acks: Array<Promise<PubAck>> = [];
    const started = Date.now();
    while (ids.length < total) {
      const due = Math.min(total, Math.floor(((Date.now() - started) * perSecond) / 1000));
      while (ids.length < due) {
        const { id, ack } = this.publishOne();
        ids.push(id);
        acks.push(ack);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(acks);
    return ids;
  }

  async close(): Promise<void> {
    await this.connection.drain();
  }
}
