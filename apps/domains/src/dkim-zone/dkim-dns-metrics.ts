import { Counter } from 'prom-client';
import { metricsRegistry, registeredMetric } from '@mailroom/runtime';

/**
 * UDP queries the DKIM DNS server did not answer in full because their client
 * network was past DKIM_DNS_RATE_LIMIT: `slip` got an empty truncated answer
 * (a resolver asks again over TCP), `drop` none. A steady count is a
 * reflection attempt, or a resolver asking far more often than the TTL needs.
 */
export const dkimDnsRateLimited = registeredMetric(
  'mailroom_dkim_dns_rate_limited_total',
  () =>
    new Counter({
      name: 'mailroom_dkim_dns_rate_limited_total',
      help: 'UDP DNS queries past the per-network answer rate, by what they got (slip: empty truncated answer; drop: none)',
      labelNames: ['verdict'],
      registers: [metricsRegistry],
    }),
);
