import { Counter } from 'prom-client';
import { metricsRegistry, registeredMetric } from '@mailroom/runtime';

export const idempotencyKeyWaits = registeredMetric(
  'mailroom_idempotency_key_waits_total',
  () =>
    new Counter({
      name: 'mailroom_idempotency_key_waits_total',
      help: 'Sends that found their Idempotency-Key being stored by another request, and waited for it',
      registers: [metricsRegistry],
    }),
);
