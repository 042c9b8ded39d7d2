import type { BenchStack } from './bench-stack';
import { scrapeMetrics } from '../prometheus-text';

/** How often the warm-up asks each app's operations port: a compressed Prometheus scrape and probe schedule. */
const EVERY_MS = 250;

/**
 * Runs `work` while every app's operations port is scraped (/metrics) and
 * probed (/health/ready), as Prometheus and the kubelet do to a process in
 * production. A warm-up without them let V8 optimize the HTTP server's hot
 * functions for the API port's requests alone; the bench's own scrapes just
 * before the measured phase then deoptimized them ("wrong map", 39 functions
 * in the gateway), and the phase's first two seconds ran on unoptimized code
 * at about a quarter more CPU a request (p99 there 78–304 ms against 24–95
 * after). A production process has long seen both kinds of request. With
 * this warm-up the first seconds mostly read like the rest (six interleaved
 * runs: p99 47, 47 and 49 ms with it, 54, 145 and 67 without; one later run
 * with it 73 ms, its first five seconds 59–84).
 */
export async function withOpsTraffic<T>(stack: BenchStack, work: () => Promise<T>): Promise<T> {
  let running = true;
  const traffic = (async () => {
    while (running) {
      await Promise.all(stack.processes.flatMap(({ opsUrl }) => [scrapeMetrics(opsUrl), fetch(`${opsUrl}/health/ready`).then((probe) => probe.text())]));
      await new Promise((resolve) => setTimeout(resolve, EVERY_MS));
    }
  })();
  // Handled here so that a failed scrape does not end the process while `work` runs; awaited below, it still fails the bench.
  traffic.catch(() => undefined);
  try {
    return await work();
  } finally {
    running = false;
    await traffic;
  }
}
