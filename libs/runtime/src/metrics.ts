import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * One Prometheus registry per process, served at /metrics on the ops port.
 * Apps register their own metrics on it (queue depth, delivery outcomes,
 * webhook attempts) next to the ones defined here.
 */
export const metricsRegistry = new Registry();
let defaultsCollected = false;

export function collectProcessMetrics(app: string): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  metricsRegistry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: metricsRegistry });
}

/**
 * The metric registered under `name`, created on first use: apps are booted
 * more than once in one process by the e2e harness, and prom-client refuses a
 * second registration of a name.
 */
export function registeredMetric<T>(name: string, create: () => T): T {
  return (metricsRegistry.getSingleMetric(name) as T | undefined) ?? create();
}

export const httpRequestDuration = registeredMetric(
  'mailroom_http_request_duration_seconds',
  () =>
    new Histogram({
      name: 'mailroom_http_request_duration_seconds',
      help: 'HTTP request duration at the gateway, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [metricsRegistry],
    }),
);

export const natsRequestDuration = registeredMetric(
  'mailroom_nats_request_duration_seconds',
  () =>
    new Histogram({
      name: 'mailroom_nats_request_duration_seconds',
      help: 'NATS request-reply latency seen by the caller, by subject and outcome',
      labelNames: ['subject', 'outcome'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [metricsRegistry],
    }),
);

export const rateLimitedRequests = registeredMetric(
  'mailroom_rate_limited_requests_total',
  () =>
    new Counter({
      name: 'mailroom_rate_limited_requests_total',
      help: 'Requests answered 429, by the limit that refused them: api_key (RATE_LIMIT_PER_SECOND) or auth_failures (AUTH_FAILURE_LIMIT)',
      labelNames: ['limit'],
      registers: [metricsRegistry],
    }),
);

/** Whatever fills the outbox gauges when Prometheus scrapes: the outbox of each service running in this process. */
export interface OutboxGaugeSource {
  refresh(): Promise<void>;
}

const outboxGaugeSources = new Set<OutboxGaugeSource>();

/** Adds a source; the answer removes it again, when its app closes. */
export function addOutboxGaugeSource(source: OutboxGaugeSource): () => void {
  outboxGaugeSources.add(source);
  return () => outboxGaugeSources.delete(source);
}

async function refreshOutboxGauges(): Promise<void> {
  await Promise.all([...outboxGaugeSources].map((source) => source.refresh()));
}

/**
 * Events a consumer of the stream acknowledged without applying them: what
 * an internal service published is not an event envelope, or its data is
 * not something the consumer can apply (a bounce report without a valid
 * recipient, say). Each is logged too; this is what an alert watches.
 */
export const eventsIgnored = registeredMetric(
  'mailroom_events_ignored_total',
  () =>
    new Counter({
      name: 'mailroom_events_ignored_total',
      help: 'Stream events acknowledged without being applied, by consumer (its durable) and reason: not_an_envelope or not_applicable',
      labelNames: ['consumer', 'reason'],
      registers: [metricsRegistry],
    }),
);

export const outboxUnpublished = registeredMetric(
  'mailroom_outbox_unpublished_events',
  () =>
    new Gauge({
      name: 'mailroom_outbox_unpublished_events',
      help: "Events in a service's outbox that its relay has not yet published to the event stream",
      labelNames: ['service'],
      registers: [metricsRegistry],
      collect: refreshOutboxGauges,
    }),
);

export const outboxOldestUnpublishedAge = registeredMetric(
  'mailroom_outbox_oldest_unpublished_age_seconds',
  () =>
    new Gauge({
      name: 'mailroom_outbox_oldest_unpublished_age_seconds',
      help: "Seconds since the first event still waiting in a service's outbox was written; 0 when none waits",
      labelNames: ['service'],
      registers: [metricsRegistry],
      collect: refreshOutboxGauges,
    }),
);

/**
 * Stored secrets a service still holds sealed with a key of ENCRYPTION_KEY_PREVIOUS after its last re-sealing
 * pass (see SecretResealer): once it is 0 in every replica of the domains service (dkim_key) and the webhook
 * dispatcher (webhook_secret), the previous key has nothing left to open there.
 */
export const secretsSealedWithPreviousKey = registeredMetric(
  'mailroom_secrets_sealed_with_previous_key',
  () =>
    new Gauge({
      name: 'mailroom_secrets_sealed_with_previous_key',
      help: 'Stored secrets still sealed with a key of ENCRYPTION_KEY_PREVIOUS after the last re-sealing pass, by kind (dkim_key in domains, webhook_secret in the webhook dispatcher); 0 once all are sealed under ENCRYPTION_KEY',
      labelNames: ['kind'],
      registers: [metricsRegistry],
    }),
);

/** Keyed creations (IdempotencyKeyWait) in the emails service and the webhook dispatcher; no label, since `app` tells them apart. */
export const idempotencyKeyWaits = registeredMetric(
  'mailroom_idempotency_key_waits_total',
  () =>
    new Counter({
      name: 'mailroom_idempotency_key_waits_total',
      help: 'Keyed requests (sends, webhook creations) that found their Idempotency-Key being stored by another request, and waited for it',
      registers: [metricsRegistry],
    }),
);
