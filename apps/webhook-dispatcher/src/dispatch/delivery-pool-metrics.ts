import { Gauge } from 'prom-client';
import { metricsRegistry, registeredMetric } from '@mailroom/runtime';

/** The most payload bytes of deliveries this dispatcher has held at once since it started: never above WEBHOOK_DELIVERY_BUFFER_BYTES but for one larger delivery. */
export const deliveryPoolPeakGauge = registeredMetric(
  'mailroom_webhook_delivery_pool_peak_bytes',
  () =>
    new Gauge({
      name: 'mailroom_webhook_delivery_pool_peak_bytes',
      help: 'Most payload bytes of deliveries (their JSON) this dispatcher has held at once, claimed and not yet recorded, since it started; bounded by WEBHOOK_DELIVERY_BUFFER_BYTES, or one delivery when a single one is larger',
      registers: [metricsRegistry],
    }),
);
