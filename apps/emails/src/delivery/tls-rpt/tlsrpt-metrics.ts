import { Counter } from 'prom-client';
import { metricsRegistry, registeredMetric } from '@mailroom/runtime';

/**
 * Each TLS report (RFC 8460) to each rua: `sent` when it took it (a 2xx, or the rua's MX accepted the mail),
 * `failed` when it did not (retried, see TlsrptReporter), `dropped` once a report's last try failed, `skipped` for a
 * mailto: rua while TLSRPT_FROM is unset.
 */
export const tlsReportsSent = registeredMetric(
  'mailroom_tlsrpt_reports_total',
  () =>
    new Counter({
      name: 'mailroom_tlsrpt_reports_total',
      help: 'TLS reports (RFC 8460) by outcome (sent, failed, dropped, skipped) and transport (https, mailto)',
      labelNames: ['outcome', 'transport'],
      registers: [metricsRegistry],
    }),
);

/** The SMTP sessions of mx delivery counted for TLS reports: `success` with TLS negotiated, else the RFC 8460 result type. */
export const tlsSessionsCounted = registeredMetric(
  'mailroom_tlsrpt_sessions_total',
  () =>
    new Counter({
      name: 'mailroom_tlsrpt_sessions_total',
      help: 'SMTP sessions counted for TLS reports, by result (success, or an RFC 8460 result type)',
      labelNames: ['result'],
      registers: [metricsRegistry],
    }),
);
