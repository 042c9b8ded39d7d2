import { startBenchStack } from './bench-stack';
import { SignedReceiver } from './signed-receiver';
import { StreamPublisher } from './stream-publisher';

const BURST_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 20_000);
const STEADY_RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 1000);
const STEADY_SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 15);
const WARM_UP_EVENTS = 500;

interface PhaseResult {
  deliveriesPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  events: number;
  missing: number;
  duplicates: number;
  signatureFailures: number;
}

/**
 * Signed webhook deliveries from the dispatcher to one local endpoint, with
 * the events published straight onto JetStream (as an internal service does).
 * Two phases, because one run cannot show both halves of the target: a burst
 * of BENCH_WEBHOOK_EVENTS measures throughput (queueing makes its latency
 * grow with the burst), and a steady BENCH_WEBHOOK_RATE events/s for
 * BENCH_WEBHOOK_SECONDS measures the delay to the first attempt at that load.
 */
export async function webhooksBench(): Promise<void> {
  const receiver = await new SignedReceiver().start();
  const stack = await startBenchStack(['keys', 'webhook-dispatcher', 'gateway'], { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  let publisher: StreamPublisher | undefined;
  try {
    receiver.setSecret(await createWebhook(stack.baseUrl, stack.rootKey, receiver.url));
    publisher = await StreamPublisher.connect(stack.natsUrl);

    await measure(receiver, publisher, () => publisher!.burst(WARM_UP_EVENTS)); // JIT, pools, keep-alive connections
    const burst = await measure(receiver, publisher, () => publisher!.burst(BURST_EVENTS));
    report(`webhooks burst of ${BURST_EVENTS} events`, burst, '>= 1000 deliveries/s, all delivered, 0 bad signatures', burst.deliveriesPerSecond >= 1000 && clean(burst));
    const steady = await measure(receiver, publisher, () => publisher!.paced(STEADY_RATE, STEADY_SECONDS));
    report(
      `webhooks steady ${STEADY_RATE} events/s for ${STEADY_SECONDS} s`,
      steady,
      'first attempt p99 <= 1000 ms at >= 1000 events/s, all delivered, 0 bad signatures',
      STEADY_RATE >= 1000 && steady.p99 <= 1000 && clean(steady),
    );
  } finally {
    await publisher?.close().catch(() => undefined);
    await stack.stop();
    await receiver.stop();
  }
}

async function createWebhook(baseUrl: string, key: string, url: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['email.delivered'], description: 'benchmark receiver' }),
  });
  const body = (await response.json()) as { secret?: string };
  if (response.status !== 201 || !body.secret) throw new Error(`creating the webhook answered ${response.status}: ${JSON.stringify(body)}`);
  return body.secret;
}

/** Publishes one phase's events and waits (bounded) until each has arrived once. */
async function measure(receiver: SignedReceiver, publisher: StreamPublisher, publish: () => Promise<string[]>): Promise<PhaseResult> {
  const before = await receiver.stats();
  const ids = await publish();
  // At least 100 deliveries/s, or the phase is reported with what is missing.
  await receiver.waitForDistinct(before.distinct + ids.length, 30_000 + ids.length * 10);
  const after = await receiver.stats();
  const firstArrival = await receiver.firstArrivals();
  const latencies: number[] = [];
  let firstPublish = Infinity;
  let lastArrival = 0;
  for (const id of ids) {
    const published = publisher.publishedAt.get(id)!;
    firstPublish = Math.min(firstPublish, published);
    const arrived = firstArrival.get(id);
    if (arrived === undefined) continue;
    lastArrival = Math.max(lastArrival, arrived);
    latencies.push(arrived - published);
  }
  latencies.sort((a, b) => a - b);
  const at = (fraction: number) => latencies[Math.min(latencies.length - 1, Math.floor(fraction * latencies.length))] ?? NaN;
  return {
    deliveriesPerSecond: Math.round((latencies.length * 1000) / Math.max(1, lastArrival - firstPublish)),
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    events: ids.length,
    missing: ids.length - latencies.length,
    duplicates: after.duplicates - before.duplicates,
    signatureFailures: after.signatureFailures - before.signatureFailures,
  };
}

function clean(result: PhaseResult): boolean {
  return result.missing === 0 && result.signatureFailures === 0;
}

function report(name: string, result: PhaseResult, target: string, met: boolean): void {
  process.stdout.write(
    `${name}: ${result.deliveriesPerSecond} deliveries/s, first attempt p50 ${result.p50} ms, p95 ${result.p95} ms, p99 ${result.p99} ms, ` +
      `${result.events} events, ${result.missing} missing, ${result.duplicates} duplicates, ${result.signatureFailures} bad signatures — target ${target}: ${met ? 'MET' : 'NOT MET'}\n`,
  );
}
