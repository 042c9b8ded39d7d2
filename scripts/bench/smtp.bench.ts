import { loadavg } from 'node:os';
import { authenticate } from 'mailauth';
import { Client } from 'pg';
import { BenchStack, startBenchStack } from './bench-stack';
import { SmtpSink } from './smtp-sink';
import { CpuSample, cpuPerUnit, stackCpu } from './stack-cpu';

const TARGET_PER_SECOND = 1000;
const MEASURE_SECONDS = Number(process.env.BENCH_SMTP_SECONDS ?? 60);
const WARM_UP_SECONDS = Number(process.env.BENCH_SMTP_WARM_UP_SECONDS ?? 10);
/**
 * Accepted but not yet at the sink. Enough to keep every delivery slot busy
 * for a couple of seconds, small enough that the latency figures say how fast
 * mail moves rather than how deep a queue the bench piled up.
 */
const MAX_BACKLOG = Number(process.env.BENCH_SMTP_BACKLOG ?? 2000);
const BATCH_SIZE = 100;
const PARALLEL_REQUESTS = 4;
const DOMAIN = 'bench.test';
const DELIVERY_CONCURRENCY = process.env.DELIVERY_CONCURRENCY ?? '128';
const SMTP_MAX_CONNECTIONS = process.env.SMTP_MAX_CONNECTIONS ?? '16';
/**
 * Emails processes delivering side by side, as replicas would. One process is
 * one event loop: composing, signing and speaking SMTP for about 1,000
 * messages a second fills it while the machine still has CPU to spare.
 */
const EMAILS_REPLICAS = Number(process.env.BENCH_EMAILS_REPLICAS ?? 1);

interface SendLog {
  sentAt: Map<string, number>;
  failedRequests: number;
}

/**
 * Live, DKIM-signed emails end to end: POST /v1/emails/batch → emails queue →
 * delivery worker → relay (a local SMTP sink). The senders keep MAX_BACKLOG
 * emails in flight; after a warm-up, the arrivals at the sink over
 * MEASURE_SECONDS are the throughput, and arrival minus the start of the
 * request that sent the email is the end-to-end latency.
 */
export async function smtpBench(): Promise<void> {
  if (!Number.isInteger(EMAILS_REPLICAS) || EMAILS_REPLICAS < 1) throw new Error(`BENCH_EMAILS_REPLICAS must be a whole number of at least 1, got '${process.env.BENCH_EMAILS_REPLICAS}'`);
  const sink = await new SmtpSink().start();
  const emailsProcesses = Array.from({ length: EMAILS_REPLICAS }, () => 'emails' as const);
  const stack = await startBenchStack(['keys', 'domains', ...emailsProcesses, 'gateway'], {
    DELIVERY_MODE: 'relay',
    SMTP_RELAY_URL: sink.relayUrl,
    SMTP_HELO_NAME: 'mailroom.bench.test',
    /**
     * One relay takes all the mail, and an SMTP session carries one message at
     * a time, so throughput is sessions ÷ transaction time: the defaults (5
     * sessions, 32 emails in flight) cap it near 300 msg/s here. These are the
     * settings for a high-volume relay; the report line names them.
     */
    DELIVERY_CONCURRENCY: DELIVERY_CONCURRENCY,
    SMTP_MAX_CONNECTIONS: SMTP_MAX_CONNECTIONS,
  });
  try {
    const publicKey = await verifiedBenchDomain(stack);
    const log: SendLog = { sentAt: new Map(), failedRequests: 0 };
    let arrived = 0;
    const stopAt = Date.now() + (WARM_UP_SECONDS + MEASURE_SECONDS) * 1000;
    const measureFrom = Date.now() + WARM_UP_SECONDS * 1000;
    let cpuAtStart: CpuSample | undefined;
    const cpuMark = setTimeout(() => void stackCpu(stack).then((cpu) => (cpuAtStart = cpu)), measureFrom - Date.now());
    const watcher = setInterval(() => void sink.stats().then((stats) => (arrived = stats.distinct)), 50);
    await Promise.all(
      Array.from({ length: PARALLEL_REQUESTS }, async () => {
        while (Date.now() < stopAt) {
          if (log.sentAt.size - arrived >= MAX_BACKLOG) await sleep(10);
          else await sendBatch(stack, log);
        }
      }),
    );
    const measureTo = Date.now();
    const cpuAtEnd = await stackCpu(stack);
    clearInterval(watcher);
    clearTimeout(cpuMark);
    await waitForArrivals(sink, log.sentAt.size, 120_000);

    const [stats, arrivals, samples] = await Promise.all([sink.stats(), sink.firstArrivals(), sink.samples()]);
    const window = summarize(log, arrivals, measureFrom, measureTo);
    const badSignatures = await countBadSignatures(samples, publicKey);
    const missing = [...log.sentAt.keys()].filter((id) => !arrivals.has(id)).length;
    const clean = missing === 0 && stats.duplicates === 0 && stats.unsigned === 0 && badSignatures === 0 && log.failedRequests === 0;
    const met = window.perSecond >= TARGET_PER_SECOND && clean;
    process.stdout.write(
      `smtp relay (${EMAILS_REPLICAS} emails process${EMAILS_REPLICAS === 1 ? '' : 'es'}, each ${SMTP_MAX_CONNECTIONS} sessions and ${DELIVERY_CONCURRENCY} in flight), DKIM rsa-sha256 2048-bit: ${window.perSecond} msg/s over ${window.seconds} s (slowest 5 s: ${window.slowestFiveSeconds} msg/s), ` +
        `end to end p50 ${window.p50} ms, p99 ${window.p99} ms; ${log.sentAt.size} accepted, ${missing} missing, ${stats.duplicates} duplicates, ` +
        `${stats.unsigned} unsigned, ${badSignatures}/${samples.length} sampled signatures failing, ${log.failedRequests} failed requests; ` +
        `load average ${loadavg().map((load) => load.toFixed(2)).join(' ')} — target >= ${TARGET_PER_SECOND} msg/s for ${MEASURE_SECONDS} s, ` +
        `none lost or doubled, all signed: ${met ? 'MET' : 'NOT MET'}\n`,
    );
    process.stdout.write(`  msg/s in each 5 s: ${window.fiveSecondRates.join(' ')}\n`);
    if (cpuAtStart) process.stdout.write(`${cpuPerUnit(cpuAtStart, cpuAtEnd, window.perSecond * window.seconds, 'message')}\n`);
  } finally {
    await stack.stop();
    await sink.stop();
  }
}

/**
 * Adds the sending domain through the API, then marks it verified straight in
 * the domains schema. Bench-only shortcut: real verification needs public DNS
 * (or the test DNS server of the e2e harness), which would measure nothing
 * here. The key, selector and everything the worker reads stay as the API made them.
 */
async function verifiedBenchDomain(stack: BenchStack): Promise<{ selector: string; publicKeyBase64: string }> {
  const created = await fetch(`${stack.baseUrl}/v1/domains`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.rootKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: DOMAIN }),
  });
  const body = (await created.json()) as { id?: string };
  if (created.status !== 201 || !body.id) throw new Error(`adding ${DOMAIN} answered ${created.status}: ${JSON.stringify(body)}`);
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query(
      `UPDATE domains.domains
          SET status = 'verified', spf_status = 'verified', dkim_status = 'verified', dmarc_status = 'verified',
              verified_at = now(), next_check_at = now() + interval '1 day', updated_at = now()
        WHERE id = $1
        RETURNING dkim_selector, dkim_public_key`,
      [body.id],
    );
    return { selector: rows[0].dkim_selector, publicKeyBase64: rows[0].dkim_public_key };
  } finally {
    await db.end();
  }
}

/** One full batch with the live root key; the email ids of the reply are stamped with the start of the request. */
async function sendBatch(stack: BenchStack, log: SendLog): Promise<void> {
  const startedAt = Date.now();
  const emails = Array.from({ length: BATCH_SIZE }, (_, index) => ({
    from: `Bench <bench@${DOMAIN}>`,
    to: `reader${(log.sentAt.size + index) % 5000}@example.com`,
    subject: 'Your receipt',
    text: 'Thanks for your order. It ships tomorrow; track it at https://bench.test/orders/1.',
    html: '<p>Thanks for your order.</p><p>It ships tomorrow; <a href="https://bench.test/orders/1">track it</a>.</p>',
  }));
  const response = await fetch(`${stack.baseUrl}/v1/emails/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.rootKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ emails }),
  });
  const body = (await response.json()) as { data?: Array<{ id: string }> };
  if (response.status >= 300 || !body.data) {
    log.failedRequests += 1;
    if (log.failedRequests === 1) process.stderr.write(`batch answered ${response.status}: ${JSON.stringify(body).slice(0, 500)}\n`);
    await sleep(100);
    return;
  }
  for (const email of body.data) log.sentAt.set(email.id, startedAt);
}

async function waitForArrivals(sink: SmtpSink, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await sink.stats()).distinct < count && Date.now() < deadline) await sleep(100);
}

function summarize(log: SendLog, arrivals: Map<string, number>, from: number, to: number) {
  const latencies: number[] = [];
  const buckets = new Array<number>(Math.max(1, Math.floor((to - from) / 5000))).fill(0);
  for (const [id, arrivedAt] of arrivals) {
    if (arrivedAt < from || arrivedAt >= to) continue;
    const sentAt = log.sentAt.get(id);
    if (sentAt !== undefined) latencies.push(arrivedAt - sentAt);
    const bucket = Math.floor((arrivedAt - from) / 5000);
    if (bucket < buckets.length) buckets[bucket] += 1;
  }
  latencies.sort((a, b) => a - b);
  const at = (fraction: number) => latencies[Math.min(latencies.length - 1, Math.floor(fraction * latencies.length))] ?? NaN;
  const seconds = (to - from) / 1000;
  return {
    seconds: Math.round(seconds),
    perSecond: Math.round(latencies.length / seconds),
    slowestFiveSeconds: Math.round(Math.min(...buckets) / 5),
    fiveSecondRates: buckets.map((count) => Math.round(count / 5)),
    p50: at(0.5),
    p99: at(0.99),
  };
}

/** Verifies the sampled messages with mailauth, the public key answered for <selector>._domainkey.<domain>. */
async function countBadSignatures(samples: Buffer[], key: { selector: string; publicKeyBase64: string }): Promise<number> {
  const record = `${key.selector}._domainkey.${DOMAIN}`;
  const resolver = async (name: string, type: string) => {
    if (type === 'TXT' && name === record) return [[`v=DKIM1; k=rsa; p=${key.publicKeyBase64}`]];
    throw Object.assign(new Error(`no ${type} at ${name}`), { code: 'ENOTFOUND' });
  };
  let bad = 0;
  for (const raw of samples) {
    const result = await authenticate(raw, { ip: '127.0.0.1', helo: 'mailroom.bench.test', sender: `bounces@${DOMAIN}`, mta: 'sink.test', resolver, disableArc: true });
    if (!result.dkim.results.some((signature: { status: { result: string }; signingDomain: string }) => signature.status.result === 'pass' && signature.signingDomain === DOMAIN)) bad += 1;
  }
  return bad;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
