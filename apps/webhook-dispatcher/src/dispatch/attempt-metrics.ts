import { Counter, Histogram } from 'prom-client';
import { metricsRegistry, registeredMetric } from '@mailroom/runtime';
import type { AttemptOutcome, HttpResult } from './attempt-outcome';

/**
 * The outcome label of one attempt: success (2xx), gone (410, the webhook is
 * disabled), throttled (429/503), redirect (3xx, never followed), http_error
 * (any other status), timeout, refused (the SSRF guard refused the address),
 * network_error (no connection, reset, DNS), aborted (shutdown; the delivery
 * is released and sent again), dispatcher_error (nothing sent: the dispatcher
 * could not make the request, e.g. a signing secret that does not decrypt).
 */
export function attemptOutcomeLabel(result: HttpResult, outcome: AttemptOutcome | null): string {
  const code = result.statusCode;
  if (code === null) {
    if (result.failure === 'timeout' || result.failure === 'refused' || result.failure === 'aborted') return result.failure;
    if (result.failure === 'dispatcher') return 'dispatcher_error';
    return 'network_error';
  }
  if (outcome?.success) return 'success';
  if (outcome?.gone) return 'gone';
  if (code === 429 || code === 503) return 'throttled';
  if (code >= 300 && code < 400) return 'redirect';
  return 'http_error';
}

export const webhookAttempts = registeredMetric(
  'mailroom_webhook_attempts_total',
  () =>
    new Counter({
      name: 'mailroom_webhook_attempts_total',
      help: 'Webhook delivery attempts (HTTP POSTs) by outcome: success, gone, throttled, redirect, http_error, timeout, refused, network_error, aborted, dispatcher_error (nothing was sent)',
      labelNames: ['outcome'],
      registers: [metricsRegistry],
    }),
);

export const webhookAttemptDuration = registeredMetric(
  'mailroom_webhook_attempt_duration_seconds',
  () =>
    new Histogram({
      name: 'mailroom_webhook_attempt_duration_seconds',
      help: 'Duration of one webhook delivery attempt, from the request to the end of the answer (or the failure), by outcome',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
      registers: [metricsRegistry],
    }),
);

/** Like the emails worker's outcome retries: an endpoint's answer written again because Postgres was unreachable. */
export const attemptRecordRetries = registeredMetric(
  'mailroom_webhook_attempt_record_retries_total',
  () =>
    new Counter({
      name: 'mailroom_webhook_attempt_record_retries_total',
      help: 'Webhook attempt results written again because the database was unavailable when the endpoint answered (the result is recorded late instead of the event being sent again)',
      registers: [metricsRegistry],
    }),
);

export function recordAttemptMetrics(result: HttpResult, outcome: AttemptOutcome | null): void {
  const label = attemptOutcomeLabel(result, outcome);
  webhookAttempts.inc({ outcome: label });
  webhookAttemptDuration.observe({ outcome: label }, result.durationMs / 1000);
}
