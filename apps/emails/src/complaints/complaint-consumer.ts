import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { parseEmailAddress, type EventEnvelope } from '@mailroom/contracts';
import { consumeEvents, EVENT_STREAM_MAX_AGE_MS, RunningConsumer } from '@mailroom/outbox';
import { MAILROOM_CONFIG, schedulePurge } from '@mailroom/runtime';
import { ComplaintsRepository } from './complaints.repository';

/** A day past the stream's own retention: the stream cannot deliver an event older than that again. */
const APPLIED_COMPLAINTS_RETENTION_MS = EVENT_STREAM_MAX_AGE_MS + 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;

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
  private purgeTimer?: NodeJS.Timeout;

  constructor(
    private readonly complaints: ComplaintsRepository,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumer = await consumeEvents({
      natsUrl: this.config.NATS_URL,
      streamReplicas: this.config.EVENT_STREAM_REPLICAS,
      durable: 'emails-complaints',
      filterSubject: 'email.complained',
      handle: (event) => this.apply(event),
    });
    this.purgeTimer = schedulePurge(this.logger, 'applied complaint ids past the event stream\'s retention', PURGE_EVERY_MS, () =>
      this.complaints.purgeAppliedEvents(APPLIED_COMPLAINTS_RETENTION_MS),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.purgeTimer);
    await this.consumer?.stop();
  }

  async apply(event: EventEnvelope): Promise<void> {
    const data = event.data ?? {};
    const recipient = typeof data.recipient === 'string' ? data.recipient : Array.isArray(data.to) && data.to.length === 1 ? String(data.to[0]) : '';
    // Read as a send reads a recipient: the stored form, or nothing for what Mailroom could never have sent to.
    // Anything looser could never succeed either (an address too long for the suppression list's index was
    // refused by Postgres on every redelivery, for ever), so it is acknowledged rather than redelivered.
    const address = parseEmailAddress(recipient)?.normalized;
    if (!address) {
      this.logger.warn({ eventId: event.id }, 'email.complained without a valid recipient address; ignored');
      return;
    }
    const emailId = typeof data.emailId === 'string' ? data.emailId : null;
    const details = typeof data.feedback === 'string' ? data.feedback.slice(0, 500) : 'complaint reported';
    await this.complaints.apply(event.id, event.mode === 'test' ? 'test' : 'live', emailId, address, details);
  }
}
