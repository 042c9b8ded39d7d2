import { Counter } from 'prom-client';
import { metricsRegistry, registeredMetric } from '@mailroom/runtime';

export const emailsDroppedPastDeadline = registeredMetric(
  'mailroom_emails_dropped_past_deadline_total',
  () =>
    new Counter({
      name: 'mailroom_emails_dropped_past_deadline_total',
      help: 'Emails of sends not stored because the gateway had stopped waiting for them (RPC_TIMEOUT_MS, a 503) before their write began, as happens while the database is slow',
      registers: [metricsRegistry],
    }),
);
