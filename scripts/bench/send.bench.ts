import { startBenchStack } from './bench-stack';
import { load, report } from './load';

const EMAIL = { from: 'Bench <bench@bench.test>', to: 'delivered@example.com', subject: 'Benchmark', text: 'Hello from the benchmark.', html: '<p>Hello</p>' };

/**
 * POST /v1/emails and /v1/emails/batch with a test key (no verified domain
 * needed; delivery is simulated, so the accept path is what is measured).
 */
export async function sendBench(): Promise<void> {
  const stack = await startBenchStack(['keys', 'domains', 'emails', 'gateway']);
  try {
    const created = await fetch(`${stack.baseUrl}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench test key', mode: 'test' }),
    });
    const key = ((await created.json()) as { key: string }).key;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const single = { url: `${stack.baseUrl}/v1/emails`, method: 'POST' as const, headers, body: JSON.stringify(EMAIL) };
    await load({ ...single, duration: 5 });
    const sent = await load({ ...single, duration: 20 });
    report('send POST /v1/emails', sent, '>= 2000 emails/s, p99 <= 25 ms', sent.requestsPerSecond >= 2000 && sent.p99 <= 25);

    const batchBody = JSON.stringify({ emails: Array.from({ length: 100 }, () => EMAIL) });
    const batch = await load({ url: `${stack.baseUrl}/v1/emails/batch`, method: 'POST', headers, body: batchBody, duration: 20, connections: 10 });
    const emailsPerSecond = batch.requestsPerSecond * 100;
    report(`send POST /v1/emails/batch (100 per request = ${emailsPerSecond} emails/s)`, batch, '>= 10000 emails/s', emailsPerSecond >= 10000);
  } finally {
    await stack.stop();
  }
}
