import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { EMAIL_LIMITS, fromDomainOf, TAG_PATTERN, type EventEnvelope } from '@mailroom/contracts';
import { GroupCommitter } from '@mailroom/database';
import { APPLIED_EVENTS_RETENTION_MS, consumeEvents, consumerSettingsFrom, NotYetError, RunningConsumer } from '@mailroom/outbox';
import { MAILROOM_CONFIG, PurgeSchedule, schedulePurge } from '@mailroom/runtime';
import { complainedAddress } from '../complaints/complained-address';
import { complaintCount } from './complaint-count';
import { CounterIncrement, CountersRepository } from './counters.repository';
import { metricsOf } from './event-metrics';

const PURGE_EVERY_MS = 60 * 60 * 1000;
/**
 * A tag a send could carry. An internal publisher's event may carry any: one
 * longer than a counter row's key can hold made its every write fail, so the
 * event was redelivered once a minute for the stream's 7 days and never
 * counted, and an empty one is the key of the all-emails row, which it
 * counted a second time. Such a tag is left out and the event counts without it.
 */
function countableTag(tag: unknown): tag is string {
  return typeof tag === 'string' && tag.length <= EMAIL_LIMITS.tagMaxLength && TAG_PATTERN.test(tag);
}

/**
 * The tags an event counts under: its first distinct ones a send could carry,
 * at most as many as a send takes. Each is a counter row per metric to write,
 * so an internal publisher's event listing thousands made thousands of rows
 * (and, times the recipients of an email.suppressed, millions).
 */
function countableTags(tags: unknown): string[] {
  return Array.isArray(tags) ? [...new Set(tags.filter(countableTag))].slice(0, EMAIL_LIMITS.tagsMax) : [];
}

/** The durable JetStream consumer the counters are kept by; replicas share it. */
export const ANALYTICS_CONSUMER = 'emails-analytics';

/**
 * Keeps the analytics counters as events happen: a durable consumer of every
 * email.* event on the stream, including those internal services publish
 * (complaints from a feedback loop). Redeliveries are counted once.
 *
 * Events are handled many at a time and the ones that arrive together are
 * counted in one transaction: one event per transaction cost four statements
 * each (40% of all the statements the emails service ran under a send load).
 * Counting commutes, so the order events are applied in does not matter.
 * Once an hour it forgets the ids of events too old to be delivered again.
 */
@Injectable()
export class AnalyticsProjector implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AnalyticsProjector.name);
  private consumer?: RunningConsumer;
  private purgeSchedule?: PurgeSchedule;
  private readonly batches = new GroupCommitter<CounterIncrement, boolean>((increments) => this.counters.applyMany(increments), { maxBatch: 500, maxInFlight: 1 });

  constructor(
    private readonly counters: CountersRepository,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumer = await consumeEvents({
      durable: ANALYTICS_CONSUMER,
      filterSubject: 'email.>',
      handle: (event) => this.apply(event),
      concurrency: 200,
      ...consumerSettingsFrom(this.config),
    });
    this.purgeSchedule = schedulePurge(this.logger, 'applied-event ids past the event stream\'s retention', PURGE_EVERY_MS, () =>
      this.counters.purgeAppliedEvents(APPLIED_EVENTS_RETENTION_MS),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    this.purgeSchedule?.stop();
    await this.consumer?.stop();
  }

  /**
   * The from domain and tags an event counts under, or null when it counts
   * nowhere. Mailroom's own events carry them; an internal publisher's may
   * name only the email (the README's complaint example does), whose summary
   * is then read, so its complaints count for the email's domain and tags
   * like any other event. A complaint about an email counts exactly when it
   * marks the email (complaint-count.ts): one naming someone the email never
   * went to, or an email that does not exist, is a publisher's mix-up or a
   * forgery; one about a recipient whose attempt is not written yet throws
   * NotYetError, so the consumer hands it back until that attempt is, logging
   * the expected wait at debug rather than as a failure.
   */
  private async summaryOf(event: EventEnvelope): Promise<{ domain: string; tags: string[] } | null> {
    const { from, tags, emailId } = event.data;
    const complained = event.type === 'email.complained' ? complainedAddress(event.data) : null;
    if (complained && typeof emailId === 'string') {
      const email = await this.counters.complainedEmailOf(event.mode, emailId, complained);
      if (!email) return null;
      const verdict = complaintCount(email);
      if (verdict === 'later') throw new NotYetError('the complained-of recipient waits on an attempt not yet written; counted once it is');
      return verdict === 'count' ? { domain: email.domain, tags: email.tags } : null;
    }
    if (typeof from !== 'string' && typeof emailId === 'string') {
      const stored = await this.counters.summaryOf(event.mode, emailId);
      if (stored) return stored;
    }
    return { domain: fromDomainOf(from), tags: countableTags(tags) };
  }

  async apply(event: EventEnvelope): Promise<void> {
    const metrics = metricsOf(event);
    if (!metrics.length || !event.id) return;
    const summary = await this.summaryOf(event);
    if (!summary) return;
    const increment: CounterIncrement = { eventId: event.id, mode: event.mode, at: new Date(event.createdAt), domain: summary.domain, tags: summary.tags, metrics };
    try {
      await this.batches.submit(increment);
    } catch {
      // An event the database refuses fails its whole batch; on its own, every good event of that batch still counts.
      await this.counters.applyMany([increment]);
    }
  }
}
