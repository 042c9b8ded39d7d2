import { Counter } from 'prom-client';
import { metricsRegistry, registeredMetric } from '@mailroom/runtime';

/**
 * Queries the DKIM DNS server did not answer in full because their client
 * was past DKIM_DNS_RATE_LIMIT: over UDP (per network) `slip` got an empty
 * truncated answer (a resolver asks again over TCP), `drop` none; over TCP
 * (per address) `refused` got REFUSED. A steady count is a reflection
 * attempt, or a resolver asking far more often than the TTL needs. `busy`
 * got SERVFAIL because the key was not in memory and the database reads
 * in flight were at their bound (a flood of made-up labels).
 */
export const dkimDnsRateLimited = registeredMetric(
  'mailroom_dkim_dns_rate_limited_total',
  () =>
    new Counter({
      name: 'mailroom_dkim_dns_rate_limited_total',
      help: 'DNS queries past the answer rate (UDP per network, TCP per address), by what they got (slip: empty truncated UDP answer; drop: none; refused: REFUSED over TCP; busy: SERVFAIL, key reads at their bound)',
      labelNames: ['verdict'],
      registers: [metricsRegistry],
    }),
);
