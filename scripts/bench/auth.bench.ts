import { startBenchStack } from './bench-stack';
import { load, report } from './load';

/** GET /v1/api-keys/{id} with a valid key: auth is a cache hit, the read is one NATS round trip to keys. */
export async function authBench(): Promise<void> {
  const stack = await startBenchStack(['keys', 'gateway']);
  try {
    const headers = { authorization: `Bearer ${stack.rootKey}` };
    const list = (await (await fetch(`${stack.baseUrl}/v1/api-keys`, { headers })).json()) as { data: { id: string }[] };
    const url = `${stack.baseUrl}/v1/api-keys/${list.data[0].id}`;
    await load({ url, headers, duration: 10 }); // warm-up: JIT, pools, the key cache
    const result = await load({ url, headers, duration: 20 });
    report('auth GET /v1/api-keys/{id}', result, '>= 5000 req/s, p99 <= 20 ms', result.requestsPerSecond >= 5000 && result.p99 <= 20);
  } finally {
    await stack.stop();
  }
}
