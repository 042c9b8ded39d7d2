import { Counter } from 'prom-client';
import { metricsRegistry, registeredMetric } from '@mailroom/runtime';

/**
 * Each MTA-STS policy fetch (a domain's `_mta-sts` record announced an id not cached, or the cached policy was due
 * for a refresh under its id): `fetched` when a valid policy came back, `invalid` when the answer was no valid
 * policy, `failed` when there was no answer (DNS, TLS, HTTP status, media type, size, timeout). A burst of failures
 * is what an attacker blocking the policy host looks like.
 */
export const stsPolicyFetches = registeredMetric(
  'mailroom_mta_sts_policy_fetches_total',
  () =>
    new Counter({
      name: 'mailroom_mta_sts_policy_fetches_total',
      help: 'MTA-STS policy fetches by outcome (fetched, invalid, failed)',
      labelNames: ['outcome'],
      registers: [metricsRegistry],
    }),
);

/**
 * Recipients an enforced MTA-STS policy kept from being sent to in an attempt: `no_matching_mx` when none of the
 * domain's MX hosts is in the policy, `tls_failed` when no MX host it lists could be reached over TLS with a valid
 * certificate. Either way they wait for a retry.
 */
export const stsPolicyRefusals = registeredMetric(
  'mailroom_mta_sts_refusals_total',
  () =>
    new Counter({
      name: 'mailroom_mta_sts_refusals_total',
      help: 'Recipients an enforced MTA-STS policy held back in a delivery attempt, by reason (no_matching_mx, tls_failed)',
      labelNames: ['reason'],
      registers: [metricsRegistry],
    }),
);
