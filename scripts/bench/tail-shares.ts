import type { BenchStack } from './bench-stack';

/** Cumulative histogram buckets (le → count) of one series, from a Prometheus text exposition. */
type Buckets = Map<string, number>;

const SERIES = [
  { label: 'gateway HTTP POST /v1/emails', pattern: /^mailroom_http_request_duration_seconds_bucket\{(?=[^}]*method="POST")(?=[^}]*route="\/v1\/emails")[^}]*le="([^"]+)"[^}]*\} (\S+)$/gm },
  { label: 'its emails.email.send RPC', pattern: /^mailroom_nats_request_duration_seconds_bucket\{(?=[^}]*subject="emails\.email\.send")(?=[^}]*outcome="ok")[^}]*le="([^"]+)"[^}]*\} (\S+)$/gm },
];

async function scrape(stack: BenchStack): Promise<Buckets[]> {
  const gateways = stack.processes.filter((process) => process.app === 'gateway');
  const totals = SERIES.map(() => new Map<string, number>());
  for (const { opsUrl } of gateways) {
    const metrics = await (await fetch(`${opsUrl}/metrics`)).text();
    SERIES.forEach(({ pattern }, index) => {
      for (const [, le, count] of metrics.matchAll(pattern)) totals[index].set(le, (totals[index].get(le) ?? 0) + Number(count));
    });
  }
  return totals;
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
  const before = await scrape(stack);
  return async () => {
    const after = await scrape(stack);
    const shares = SERIES.map(({ label }, index) => {
      const delta = (le: string) => (after[index].get(le) ?? 0) - (before[index].get(le) ?? 0);
      const total = delta('+Inf');
      const within = delta(String(thresholdSeconds));
      if (!total) return `${label} ?`;
      return `${label} ${((100 * (total - within)) / total).toFixed(2)} %`;
    });
    return `share over ${thresholdSeconds * 1000} ms: ${shares.join(', ')}`;
  };
}
