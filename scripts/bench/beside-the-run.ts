import { Client } from 'pg';
import { Scrape, scrapeMetrics } from '../prometheus-text';
import type { BenchStack } from './bench-stack';

const SAMPLE_EVERY_MS = 250;

/** Seconds spent in garbage collection of each kind, over one app's scrape. */
function gcSeconds(scrape: Scrape): Record<string, number> {
  const seconds: Record<string, number> = {};
  for (const sample of scrape.find('nodejs_gc_duration_seconds_sum')) seconds[sample.labels.kind ?? '?'] = sample.value;
  return seconds;
}

/**
 * What ran beside a benchmark run that its requests may have waited for:
 * Postgres's autovacuum and autoanalyze (which table, for how long, sampled
 * every 250 ms), and each app's garbage collection (seconds by kind, from
 * prom-client's histogram). A run measured after a phase that grew the tables
 * by 100,000 emails is a different run from one on small tables: this says
 * whether that is why. Call before the run; the answer reports the run.
 */
export async function besideTheRun(stack: BenchStack): Promise<() => Promise<string>> {
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const gcBefore = await Promise.all(stack.processes.map(async ({ opsUrl }) => gcSeconds(await scrapeMetrics(opsUrl))));
  const startedAt = Date.now();
  /** "vacuum emails.emails" → first and last second it was seen, from the run's start. */
  const seen = new Map<string, { from: number; to: number }>();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await db.query<{ work: string }>(
        `SELECT 'vacuum ' || relid::regclass AS work FROM pg_stat_progress_vacuum
         UNION ALL SELECT 'analyze ' || relid::regclass FROM pg_stat_progress_analyze`,
      );
      const at = (Date.now() - startedAt) / 1000;
      for (const { work } of rows) seen.set(work, { from: seen.get(work)?.from ?? at, to: at });
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
    }
  })();
  return async () => {
    sampling = false;
    await sampler;
    await db.end();
    const maintenance = [...seen].map(([work, { from, to }]) => `${work} ${from.toFixed(1)}–${to.toFixed(1)} s`);
    const gcAfter = await Promise.all(stack.processes.map(async ({ opsUrl }) => gcSeconds(await scrapeMetrics(opsUrl))));
    const gc = stack.processes.map(({ name }, index) => {
      const kinds = Object.entries(gcAfter[index]).map(([kind, seconds]) => `${kind} ${Math.round(1000 * (seconds - (gcBefore[index][kind] ?? 0)))}`);
      return `${name} ${kinds.join('/')}`;
    });
    return `autovacuum during the run: ${maintenance.length ? maintenance.join(', ') : 'none'}\n  GC ms by kind: ${gc.join(', ')}`;
  };
}
