import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry, registeredMetric } from '@mailroom/runtime';

/**
 * One count per recipient per recorded attempt, labelled with the recipient's
 * new status (delivered, sent, deferred, bounced, failed, suppressed) and the
 * email's mode (live: real SMTP; test: simulated). An attempt whose lease was
 * lost is not counted: the worker that took the email over counts its own.
 * Nor is an outcome the record dropped because a bounce report settled the
 * recipient while the attempt was in flight: the recipient reads bounced.
 */
export const deliveryOutcomes = registeredMetric(
  'mailroom_email_delivery_outcomes_total',
  () =>
    new Counter({
      name: 'mailroom_email_delivery_outcomes_total',
      help: 'Recipient delivery attempts recorded by the emails worker, by outcome (the recipient status after the attempt) and mode (live or test)',
      labelNames: ['outcome', 'mode'],
      registers: [metricsRegistry],
    }),
);

/**
 * Each time a delivery outcome could not be written because Postgres was
 * unreachable and was tried again: the message had already gone out, and
 * recording it late is what keeps it from going out twice.
 */
export const outcomeRecordRetries = registeredMetric(
  'mailroom_email_outcome_record_retries_total',
  () =>
    new Counter({
      name: 'mailroom_email_outcome_record_retries_total',
      help: 'Delivery outcomes written again because the database was unavailable when the SMTP reply came (the message is recorded late instead of sent twice)',
      registers: [metricsRegistry],
    }),
);

/**
 * How long one live delivery attempt of an email takes over SMTP, from asking for a pooled connection to the last
 * reply for any of its recipients, every MX host walked included (the domains of its recipients are sent to in
 * parallel). Buckets up to SMTP_MESSAGE_TIMEOUT_MS's default of 5 minutes: a healthy exchange takes well under a
 * second, a tarpitting or stalling host tens of seconds or more.
 */
export const smtpAttemptDuration = registeredMetric(
  'mailroom_smtp_attempt_duration_seconds',
  () =>
    new Histogram({
      name: 'mailroom_smtp_attempt_duration_seconds',
      help: 'Duration of one live SMTP delivery attempt of an email, by result across its recipients (accepted, deferred, refused, mixed)',
      labelNames: ['result'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers: [metricsRegistry],
    }),
);

/** Where the queue gauges read the queue when Prometheus scrapes (the running emails app's QueueMetrics). */
export interface QueueGaugeSource {
  refresh(): Promise<void>;
}

let source: QueueGaugeSource | undefined;

export function setQueueGaugeSource(next: QueueGaugeSource): void {
  source = next;
}

/** Only the source that is current lets go, so an app closing after a newer one started leaves the newer in place. */
export function clearQueueGaugeSource(current: QueueGaugeSource): void {
  if (source === current) source = undefined;
}

export const queueDepth = registeredMetric(
  'mailroom_email_queue_depth',
  () =>
    new Gauge({
      name: 'mailroom_email_queue_depth',
      help: 'Emails waiting for delivery, by state: due (now, or being delivered), scheduled (for later), deferred (waiting for a retry)',
      labelNames: ['state'],
      registers: [metricsRegistry],
      async collect() {
        await source?.refresh();
      },
    }),
);

export const oldestDueAge = registeredMetric(
  'mailroom_email_oldest_due_age_seconds',
  () =>
    new Gauge({
      name: 'mailroom_email_oldest_due_age_seconds',
      help: 'Seconds since the oldest email still waiting for delivery became due; 0 when none is due',
      registers: [metricsRegistry],
      async collect() {
        await source?.refresh();
      },
    }),
);
