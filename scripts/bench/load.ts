import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
  /** Responses per HTTP status, e.g. { 202: 35000, 503: 12 }. */
  statusCodes: Record<string, number>;
}

/** Runs autocannon and keeps the figures the README reports. */
export async function load(options: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ connections: 50, pipelining: 1, ...options });
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats?.count ?? 0]));
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p95: (result.latency as unknown as Record<string, number>).p95 ?? result.latency.p97_5,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    total: result.requests.total,
    statusCodes,
  };
}

/**
 * Prints one line per run. A run with failed requests never meets its target:
 * an error answer is fast, so failures would otherwise flatter the figures.
 */
export function report(name: string, result: LoadResult, target: string, met: boolean): void {
  const failed = result.non2xx > 0 || result.errors > 0;
  const statuses = Object.entries(result.statusCodes)
    .map(([code, count]) => `${code}×${count}`)
    .join(' ');
  const verdict = failed ? 'NOT MET (requests failed)' : met ? 'MET' : 'NOT MET';
  process.stdout.write(
    `${name}: ${result.requestsPerSecond} req/s, p50 ${result.p50} ms, p95 ${result.p95} ms, p99 ${result.p99} ms, ` +
      `${result.total} requests, ${result.non2xx} non-2xx, ${result.errors} errors, status ${statuses || 'none'} — target ${target}: ${verdict}\n`,
  );
}
