import { Scrape, scrapeMetrics } from '../prometheus-text';
import type { BenchStack } from './bench-stack';

interface Series {
  label: string;
  name: string;
  /** The labels that pick the send out of the histogram. */
  labels: Record<string, string>;
}

/** The two histograms a send passes through at the gateway. */
const SERIES: Series[] = [
  { label: 'gateway HTTP POST /v1/emails', name: 'mailroom_http_request_duration_seconds_bucket', labels: { method: 'POST', route: '/v1/emails' } },
  { label: 'its emails.email.send RPC', name: 'mailroom_nats_request_duration_seconds_bucket', labels: { subject: 'emails.email.send', outcome: 'ok' } },
];

function scrapeGateways(stack: BenchStack): Promise<Scrape[]> {
  return Promise.all(stack.processes.filter((process) => process.app === 'gateway').map(({ opsUrl }) => scrapeMetrics(opsUrl)));
}

/** Requests of one series that took at most `le` seconds, over every gateway and every other label (status). */
function countWithin(scrapes: Scrape[], series: Series, le: string): number {
  return scrapes.flatMap((scrape) => scrape.find(series.name, { ...series.labels, le })).reduce((sum, sample) => sum + sample.value, 0);
}

/**
 * Where a paced run's tail forms: of the requests the gateway served during
 * the run, the share that took longer than `thresholdSeconds` inside the
 * gateway (from its HTTP histogram) and inside its send RPC to the emails
 * service (NATS request to reply). What the load generator saw beyond those
 * is the kernel's and the generator's own waiting. Call before the run; the
 * answer reports the run.
 */
export async function tailShares(stack: BenchStack, thresholdSeconds: number): Promise<() => Promise<string>> {
  const before = await scrapeGateways(stack);
  return async () => {
    const after = await scrapeGateways(stack);
    const shares = SERIES.map((series) => {
      const delta = (le: string) => countWithin(after, series, le) - countWithin(before, series, le);
      const total = delta('+Inf');
      if (!total) return `${series.label} ?`;
      return `${series.label} ${((100 * (total - delta(String(thresholdSeconds)))) / total).toFixed(2)} %`;
    });
    return `share over ${thresholdSeconds * 1000} ms: ${shares.join(', ')}`;
  };
}
