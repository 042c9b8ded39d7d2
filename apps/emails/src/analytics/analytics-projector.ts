import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import type { EventEnvelope } from '@mailroom/contracts';
import { consumeEvents, RunningConsumer } from '@mailroom/outbox';
import { MAILROOM_CONFIG } from '@mailroom/runtime';
import { CountersRepository } from './counters.repository';
import { domainOf, metricsOf } from './event-metrics';

/**
 * Keeps the analytics counters as events happen: a durable consumer of every
 * email.* event on the stream, including those internal services publish
 * (complaints from a feedback loop). Redeliveries are counted once.
 */
@Injectable()
export class AnalyticsProjector implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer?: RunningConsumer;

  constructor(
    private readonly counters: CountersRepository,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumer = await consumeEvents({
      natsUrl: this.config.NATS_URL,
      durable: 'emails-analytics',
      filterSubject: 'email.>',
      handle: (event) => this.apply(event),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
  }

  async apply(event: EventEnvelope): Promise<void> {
    const metrics = metricsOf(event);
    if (!metrics.length || !event.id) return;
    await this.counters.apply({
      eventId: event.id,
      mode: event.mode === 'test' ? 'test' : 'live',
      at: new Date(event.createdAt ?? Date.now()),
      domain: domainOf(event.data.from),
      tags: Array.isArray(event.data.tags) ? (event.data.tags as string[]) : [],
      metrics,
    });
  }
}
