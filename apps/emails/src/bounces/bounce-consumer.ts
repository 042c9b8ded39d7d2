import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import type { EventEnvelope } from '@mailroom/contracts';
import { consumeEvents, consumerSettingsFrom, RunningConsumer } from '@mailroom/outbox';
import { eventsIgnored, MAILROOM_CONFIG } from '@mailroom/runtime';
import { EMAILS_SCHEMA } from '../database/data-source';
import { emailIdProblem } from '../reports/reported-email-id';
import { readBounceReport } from './bounce-report';
import { BouncesRepository } from './bounces.repository';

const BOUNCE_CONSUMER = 'emails-bounces';

/**
 * Applies the email.bounced events internal services publish (a bounce
 * processor reading the DSNs sent to the return path, say): a server that
 * accepted a message and bounced it later. The recipient is suppressed when
 * the reply says its mailbox is bad (by delivery's rule) or no reply is given
 * and, when the email is named, marked bounced. The email.bounced events of this
 * service's own outbox are skipped: delivery applied them when it wrote them,
 * and one whose server refused the envelope sender must suppress nobody. See
 * the README for the shape an internal publisher sends.
 */
@Injectable()
export class BounceConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(BounceConsumer.name);
  private consumer?: RunningConsumer;

  constructor(
    private readonly bounces: BouncesRepository,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumer = await consumeEvents({
      durable: BOUNCE_CONSUMER,
      filterSubject: 'email.bounced',
      // The relay names the outbox's schema as the events' origin.
      skipPublishedBy: EMAILS_SCHEMA.schema,
      // The stream already holds a week of this service's own bounces, published before they were marked.
      startAtCreation: true,
      handle: (event) => this.apply(event),
      ...consumerSettingsFrom(this.config),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
  }

  async apply(event: EventEnvelope): Promise<void> {
    const reading = readBounceReport(event.data ?? {});
    if ('ignored' in reading) {
      this.logger.warn({ eventId: event.id, problem: reading.ignored }, 'email.bounced not applied; ignored');
      eventsIgnored.inc({ consumer: BOUNCE_CONSUMER, reason: 'not_applicable' });
      return;
    }
    const problem = emailIdProblem(event.data ?? {});
    if (problem) this.logger.warn({ eventId: event.id, problem }, 'email.bounced names no email it can read');
    await this.bounces.apply(event.id, event.mode, reading.report);
  }
}
