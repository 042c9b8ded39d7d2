import { scrapeMetrics } from '../prometheus-text';
import type { BenchStack } from './bench-stack';

/**
 * The longest each app's event loop waited to run, since the last call
 * (prom-client resets its event-loop histogram on every scrape, so call it
 * once before a run to start afresh). An app with almost nothing to do that
 * still waits tens of milliseconds shows the cores were busy with the rest
 * of the stack: the delay every hop of a request may pay on a loaded machine.
 */
export async function eventLoopDelays(stack: BenchStack): Promise<string> {
  const delays: string[] = [];
  for (const { name, opsUrl } of stack.processes) {
    const max = (await scrapeMetrics(opsUrl)).find('nodejs_eventloop_lag_max_seconds')[0]?.value;
    delays.push(`${name} ${max === undefined ? '?' : Math.round(max * 1000)} ms`);
  }
  return `longest event-loop delay (timer resolution 10 ms): ${delays.join(', ')}`;
}
