import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import type { EventEnvelope } from '@mailroom/contracts';
import { consumeEvents, consumerSettingsFrom, RunningConsumer } from '@mailroom/outbox';
import { eventsIgnored, MAILROOM_CONFIG } from '@mailroom/runtime';
import { emailIdProblem } from '../reports/reported-email-id';
import { complainedAddress } from './complained-address';
import { ComplaintsRepository } from './complaints.repository';

const COMPLAINT_CONSUMER = 'emails-complaints';

/**
 * Applies email.complained events from the stream — the ones internal
 * services publish (a feedback loop processor, say) as well as our own: the
 * recipient is suppressed and the email marked. See the README for the shape
 * an internal publisher sends.
 */
@Injectable()
export class ComplaintConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ComplaintConsumer.name);
  private consumer?: RunningConsumer;

  constructor(
    private readonly complaints: ComplaintsRepository,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumer = await consumeEvents({
      durable: COMPLAINT_CONSUMER,
      filterSubject: 'email.complained',
      handle: (event) => this.apply(event),
      ...consumerSettingsFrom(this.config),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
  }

  async apply(event: EventEnvelope): Promise<void> {
    const data = event.data ?? {};
    const address = complainedAddress(data);
    if (!address) {
      this.logger.warn({ eventId: event.id }, 'email.complained without a valid recipient address; ignored');
      eventsIgnored.inc({ consumer: COMPLAINT_CONSUMER, reason: 'not_applicable' });
      return;
    }
    const problem = emailIdProblem(data);
    if (problem) this.logger.warn({ eventId: event.id, problem }, 'email.complained names no email it can read');
    const emailId = typeof data.emailId === 'string' ? data.emailId : null;
    const details = typeof data.feedback === 'string' ? data.feedback.slice(0, 500) : 'complaint reported';
    await this.complaints.apply(event.id, event.mode === 'test' ? 'test' : 'live', emailId, address, details);
  }
}
