import { EventEnvelope } from '@mailroom/contracts';
import { consumeEvents, RunningConsumer, unackedMessages } from '@mailroom/outbox';
import { eventually } from '@mailroom/testing';
import { connect, NatsConnection } from 'nats';
import type { Pool } from 'pg';

/**
 * Reads domain.* events off the stack's JetStream, as a webhook consumer
 * would, so tests count what was really published (not just what the outbox holds).
 */
export class DomainEventsRecorder {
  private constructor(
    /** Every domain event received, in stream order. */
    readonly received: EventEnvelope[],
    private readonly consumer: RunningConsumer,
    private readonly connection: NatsConnection,
    private readonly durable: string,
  ) {}

  static async start(natsUrl: string, durable = 'domains-lifecycle-test'): Promise<DomainEventsRecorder> {
    const received: EventEnvelope[] = [];
    const consumer = await consumeEvents({ nats: { NATS_URL: natsUrl }, durable, filterSubject: 'domain.>', handle: async (event) => void received.push(event) });
    return new DomainEventsRecorder(received, consumer, await connect({ servers: natsUrl }), durable);
  }

  /** The types of the events received about one domain, in stream order. */
  typesFor(domainId: string): string[] {
    return this.received.filter((event) => event.data.id === domainId).map((event) => event.type);
  }

  /**
   * Waits until the domains outbox holds nothing unpublished and this consumer
   * has received and acked everything on the stream: what was received is then all there is.
   */
  async settled(db: Pool): Promise<void> {
    await eventually(async () => {
      const [{ unpublished }] = (await db.query(`SELECT count(*)::int AS unpublished FROM domains.outbox WHERE published_at IS NULL`)).rows;
      if (unpublished !== 0) return false;
      return (await unackedMessages(await this.connection.jetstreamManager(), this.durable)) === 0;
    });
  }

  async stop(): Promise<void> {
    await this.consumer.stop();
    await this.connection.close();
  }
}
