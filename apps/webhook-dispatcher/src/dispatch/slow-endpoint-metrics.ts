import { Counter, Gauge } from 'prom-client';
import { metricsRegistry, registeredMetric } from '@mailroom/runtime';

/** How many endpoints this dispatcher holds to one request at a time: a rise is receivers stalling, not Mailroom. */
export const slowEndpointsGauge = registeredMetric(
  'mailroom_webhook_slow_endpoints',
  () =>
    new Gauge({
      name: 'mailroom_webhook_slow_endpoints',
      help: 'Webhook endpoints this dispatcher currently treats as slow (a request open a quarter of WEBHOOK_TIMEOUT_MS): each gets one request at a time, all of them together half the slots',
      registers: [metricsRegistry],
    }),
);

export const handedBackDeliveries = registeredMetric(
  'mailroom_webhook_deliveries_handed_back_total',
  () =>
    new Counter({
      name: 'mailroom_webhook_deliveries_handed_back_total',
      help: 'Claimed webhook deliveries released unsent because their endpoint turned slow; they stay due and are sent later, one at a time',
      registers: [metricsRegistry],
    }),
);
