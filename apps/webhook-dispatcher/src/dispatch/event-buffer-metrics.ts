import { Gauge } from 'prom-client';
import { metricsRegistry, registeredMetric } from '@mailroom/runtime';

/** The most bytes of events this dispatcher has held in memory at once since it started: never above EVENT_BUFFER_BYTES but for one larger event. */
export const eventBufferPeakGauge = registeredMetric(
  'mailroom_webhook_event_buffer_peak_bytes',
  () =>
    new Gauge({
      name: 'mailroom_webhook_event_buffer_peak_bytes',
      help: 'Most bytes of events (their JSON as published) this dispatcher has held at once, received and not yet fanned out, since it started; bounded by EVENT_BUFFER_BYTES, or one event when a single one is larger',
      registers: [metricsRegistry],
    }),
);
