import { Client } from 'pg';
import { connect } from 'nats';
import { unackedMessages } from '@mailroom/outbox';
import { ANALYTICS_CONSUMER } from '../../apps/emails/src/analytics/analytics-projector';
import { BenchProcess, BenchStack, startBenchStack } from './bench-stack';
import { EMAILS_ON_ONE_HOST } from '../local/stack-processes';
import { load, report } from './load';
import { pacedLoad } from './paced-load';
import { measured } from './stack-cpu';
import { eventLoopDelays } from './event-loop-delay';
import { tailShares } from './tail-shares';
import { besideTheRun } from './beside-the-run';
import { tableUpkeep } from './table-upkeep';
import { withOpsTraffic } from './ops-traffic';

const TARGET_RATE = 2000;
const PHASES = ['capacity', 'paced', 'batch'] as const;
type Phase = (typeof PHASES)[number];
const PACED_SECONDS = Number(process.env.BENCH_SEND_PACED_SECONDS ?? 20);
/** The email every send bench posts; the floor bench posts the same body. */
export const BENCH_EMAIL = { from: 'Bench <bench@bench.test>', to: 'delivered@example.com', subject: 'Benchmark', text: 'Hello from the benchmark.', html: '<p>Hello</p>' };

const EMAILS_LAYOUTS = {
  /** As `npm start` runs it: an api process and a worker process at PROCESS_NICE=10 (EMAILS_ON_ONE_HOST). */
  '1': {
    processes: EMAILS_ON_ONE_HOST.map(({ app, env }): BenchProcess => ({ app, env })),
    delivers: true,
    says: 'emails as npm start runs it: one api process, one worker process at PROCESS_NICE=10',
  },
  /** One process that does both (EMAILS_ROLE=all), as each pod of the Kubernetes Deployment runs it. */
  '0': { processes: ['emails'] as BenchProcess[], delivers: true, says: 'emails: one process that does both (BENCH_EMAILS_SPLIT=0)' },
  /**
   * The api process alone: nothing delivers, publishes events or counts them, so the run measures the accept
   * path's own cost, apart from the work each accepted email brings after it (the emails stay queued).
   */
  api: {
    processes: EMAILS_ON_ONE_HOST.filter(({ env }) => env.EMAILS_ROLE === 'api').map(({ app, env }): BenchProcess => ({ app, env })),
    delivers: false,
    says: 'emails: the api process alone, no worker (BENCH_EMAILS_SPLIT=api): nothing is delivered, the accept path is measured',
  },
} as const;

function emailsLayout(): (typeof EMAILS_LAYOUTS)[keyof typeof EMAILS_LAYOUTS] {
  const named = process.env.BENCH_EMAILS_SPLIT ?? '1';
  if (!Object.hasOwn(EMAILS_LAYOUTS, named)) throw new Error(`BENCH_EMAILS_SPLIT must be 1 (api + worker, the default), 0 (one process) or api (the api process alone), got '${named}'`);
  return EMAILS_LAYOUTS[named as keyof typeof EMAILS_LAYOUTS];
}

/** BENCH_SEND_PHASES (comma-separated) runs some of the phases, for repeated runs of one of them. */
function selectedPhases(): Set<Phase> {
  const named = (process.env.BENCH_SEND_PHASES ?? PHASES.join(',')).split(',').map((phase) => phase.trim());
  const unknown = named.filter((phase) => !(PHASES as readonly string[]).includes(phase));
  if (unknown.length) throw new Error(`BENCH_SEND_PHASES: unknown phase '${unknown.join("', '")}' (phases: ${PHASES.join(', ')})`);
  if (!Number.isFinite(PACED_SECONDS) || PACED_SECONDS < 1) throw new Error(`BENCH_SEND_PACED_SECONDS must be a number of seconds of at least 1, got '${process.env.BENCH_SEND_PACED_SECONDS}'`);
  return new Set(named as Phase[]);
}

/**
 * POST /v1/emails and /v1/emails/batch with a test key (no verified domain
 * needed; delivery is simulated, so the accept path is what is measured).
 */
export async function sendBench(): Promise<void> {
  const phases = selectedPhases();
  const emails = emailsLayout();
  process.stdout.write(`${emails.says}\n`);
  const stack = await startBenchStack(['keys', 'domains', ...emails.processes, 'gateway']);
  try {
    const created = await fetch(`${stack.baseUrl}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench test key', mode: 'test' }),
    });
    const key = ((await created.json()) as { key: string }).key;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const single = { url: `${stack.baseUrl}/v1/emails`, method: 'POST' as const, headers, body: JSON.stringify(BENCH_EMAIL) };
    // Warm-up with the operations ports scraped and probed beside the sends, as in production (withOpsTraffic says why).
    await withOpsTraffic(stack, () => load({ ...single, duration: 5 }));
    // Capacity: 50 connections each sending as soon as its last answer came. A closed loop
    // cannot also show the latency at the target rate (by Little's law 50 connections at
    // 2,000 req/s are 25 ms each on average), so the second run offers exactly the target
    // rate, evenly spread, and measures p99 there; it meets the target only if it kept that rate up.
    if (phases.has('capacity')) {
      const sent = await measured(stack, 'request', 1, () => load({ ...single, duration: 20 }));
      report('send POST /v1/emails (capacity, 50 connections)', sent, '>= 2000 emails/s', sent.requestsPerSecond >= 2000);
      process.stdout.write(`${sent.cpu}\n`);
    }
    if (phases.has('paced')) {
      // The earlier runs accept faster than the simulated deliveries go out, and their events wait for the relay and the
      // analytics consumer; that backlog would be the paced run's load too (it made the paced run's first seconds 150–250 ms).
      if (emails.delivers) await backgroundDrained(stack);
      const upkeep = await tableUpkeep(stack);
      await eventLoopDelays(stack);
      const tail = await tailShares(stack, 0.025);
      const beside = await besideTheRun(stack);
      const paced = await measured(stack, 'request', 1, () => pacedLoad({ ...single, rate: TARGET_RATE, durationSeconds: PACED_SECONDS }));
      report(`send POST /v1/emails (offered ${TARGET_RATE} req/s, evenly paced)`, paced, `${TARGET_RATE} emails/s kept up, p99 <= 25 ms`, paced.requestsPerSecond >= TARGET_RATE * 0.99 && paced.p99 <= 25);
      process.stdout.write(`${paced.cpu}\n  p99 in each second (ms): ${paced.p99PerSecond.join(' ')}\n  ${await eventLoopDelays(stack)}\n  ${await tail()}\n  ${await beside()}\n  ${upkeep}\n`);
    }
    if (phases.has('batch')) {
      const batchBody = JSON.stringify({ emails: Array.from({ length: 100 }, () => BENCH_EMAIL) });
      const batch = await measured(stack, 'email', 100, () => load({ url: `${stack.baseUrl}/v1/emails/batch`, method: 'POST', headers, body: batchBody, duration: 20, connections: 10 }));
      const emailsPerSecond = batch.requestsPerSecond * 100;
      report(`send POST /v1/emails/batch (100 per request = ${emailsPerSecond} emails/s)`, batch, '>= 10000 emails/s', emailsPerSecond >= 10000);
      process.stdout.write(`${batch.cpu}\n`);
    }
  } finally {
    await stack.stop();
  }
}

/** Every accepted email delivered, every event published, and the analytics consumer caught up. */
async function backgroundDrained(stack: BenchStack): Promise<void> {
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const nats = await connect({ servers: stack.natsUrl });
  try {
    const manager = await nats.jetstreamManager();
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const { rows } = await db.query(
        `SELECT EXISTS (SELECT 1 FROM emails.emails WHERE status = 'queued') OR EXISTS (SELECT 1 FROM emails.outbox WHERE published_at IS NULL) AS waiting`,
      );
      if (!rows[0].waiting && (await unackedMessages(manager, ANALYTICS_CONSUMER)) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error('the delivery, outbox and analytics backlog did not drain within 2 minutes');
  } finally {
    await nats.close();
    await db.end();
  }
}
