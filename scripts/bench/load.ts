import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

/** Runs autocannon and keeps the figures the README reports. */
export async function load(options: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ connections: 50, pipelining: 1, ...options });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p95: (result.latency as unknown as Record<string, number>).p95 ?? result.latency.p97_5,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    total: result.requests.total,
  };
}

export function report(name: string, result: LoadResult, target: string, met: boolean): void {
  process.stdout.write(
    `${name}: ${result.requestsPerSecond} req/s, p50 ${result.p50} ms, p95 ${result.p95} ms, p99 ${result.p99} ms, ` +
      `${result.total} requests, ${result.non2xx} non-2xx, ${result.errors} errors — target ${target}: ${met ? 'MET' : 'NOT MET'}\n`,
  );
}
