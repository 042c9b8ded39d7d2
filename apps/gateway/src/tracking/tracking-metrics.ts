import { Counter } from 'prom-client';
import { metricsRegistry, registeredMetric } from '@mailroom/runtime';

/**
 * Tracking requests whose token was sent under another tracking host than the
 * one they came to, answered as a forged token. A steady count is someone
 * serving their own signed links from another customer's tracking domain, or
 * a proxy in front that does not pass the reader's Host on (README, Deploying).
 */
export const trackingHostMismatches = registeredMetric(
  'mailroom_tracking_host_mismatches_total',
  () =>
    new Counter({
      name: 'mailroom_tracking_host_mismatches_total',
      help: 'Tracking requests refused because their token was sent under another host than the one they came to, by route (open, click)',
      labelNames: ['route'],
      registers: [metricsRegistry],
    }),
);
