import type { EventEnvelope, Mode } from '@mailroom/contracts';
import { ensureEventStream, unackedMessages } from '@mailroom/outbox';
import { connect, headers, JetStreamClient, NatsConnection } from 'nats';
import { ulid } from '@mailroom/database';

/** Publishes envelopes onto the event stream exactly as the services' outbox relays do. */
export class EventPublisher {
  private constructor(
    private readonly connection: NatsConnection,
    private readonly jetstream: JetStreamClient,
  ) {}

  static async connect(natsUrl: string): Promise<EventPublisher> {
    const connection = await connect({ servers: natsUrl });
    await ensureEventStream(await connection.jetstreamManager());
    return new EventPublisher(connection, connection.jetstream());
  }

  async publish(type: string, mode: Mode = 'live', data: Record<string, unknown> = {}): Promise<EventEnvelope> {
    const envelope: EventEnvelope = {
      id: `evt_${ulid()}`,
      type,
      createdAt: new Date().toISOString(),
      mode,
      data: { emailId: `email_${ulid()}`, from: 'sender@example.com', to: ['to@example.com'], subject: 'Hello', tags: [], ...data },
    };
    const messageHeaders = headers();
    messageHeaders.set('Mailroom-Mode', mode);
    await this.jetstream.publish(type, JSON.stringify(envelope), { msgID: envelope.id, headers: messageHeaders });
    return envelope;
  }

  /** Publishes a payload as it is, well-formed or not, as a faulty internal service might. */
  async publishRaw(subject: string, payload: string): Promise<void> {
    await this.jetstream.publish(subject, payload, { msgID: `raw_${ulid()}` });
  }

  /** Messages the dispatcher's durable consumer has not acked yet. */
  async pendingAcks(consumer: string): Promise<number> {
    return unackedMessages(await this.connection.jetstreamManager(), consumer);
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
