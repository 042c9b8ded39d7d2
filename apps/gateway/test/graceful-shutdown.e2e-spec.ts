import { ClientRequest, request } from 'node:http';
import { AppProcess, eventually, PROCESS_READY_TIMEOUT_MS, Stack, startGatewayProcess, startStack } from '@mailroom/testing';

const SHUTDOWN_BOUND_MS = 15000;

interface HeldRequest {
  /** Sends the rest of the body; resolves with the answer. */
  finish(): Promise<{ status: number; body: any }>;
}

/**
 * Opens POST /v1/api-keys with `Expect: 100-continue` and holds the body back.
 * The server's 100 Continue proves it has parsed the request: from then on
 * the request is in flight at the gateway.
 */
function holdRequest(baseUrl: string, key: string, name: string): Promise<HeldRequest> {
  const body = JSON.stringify({ name, permissions: ['emails:read'] });
  return new Promise((resolve, reject) => {
    const answer = new Promise<{ status: number; body: any }>((resolveAnswer, rejectAnswer) => {
      const req: ClientRequest = request(`${baseUrl}/v1/api-keys`, {
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
      });
      req.on('continue', () => resolve({ finish: () => (req.end(body), answer) }));
      req.on('response', (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolveAnswer({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', (error) => {
        reject(error);
        rejectAnswer(error);
      });
      req.flushHeaders();
    });
    answer.catch(() => undefined);
  });
}

/** The gateway runs as its own process and receives SIGTERM under HTTP load, with requests in flight. */
describe('SIGTERM to the gateway process under HTTP load', () => {
  let stack: Stack;
  let gateway: AppProcess | undefined;
  let baseUrl: string;
  let opsUrl: string;

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'domains', 'emails', 'webhook-dispatcher'] });
    const started = await startGatewayProcess(stack);
    ({ baseUrl, opsUrl } = started);
    gateway = started.process;
    await eventually(async () => (await fetch(`${baseUrl}/health`).then((response) => response.status, () => 0)) === 200, PROCESS_READY_TIMEOUT_MS);
  }, 240000);

  afterAll(async () => {
    gateway?.child.kill('SIGKILL');
    await stack?.stop();
  });

  it('answers every request in flight, then exits 0 within the bound', async () => {
    const outcomes: Array<{ at: 'before' | 'after'; result: string }> = [];
    let signalled = false;
    let loading = true;
    const loader = async () => {
      while (loading) {
        const at = signalled ? 'after' : 'before';
        const result = await fetch(`${baseUrl}/v1/api-keys`, { headers: { authorization: `Bearer ${stack.rootKey}` } }).then(
          async (response) => (await response.arrayBuffer(), String(response.status)),
          (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
        );
        outcomes.push({ at, result });
        if (signalled && result !== '200') return;
      }
    };
    const loaders = Promise.all(Array.from({ length: 4 }, loader));
    await eventually(() => outcomes.length >= 40);

    const held = await Promise.all([1, 2, 3].map((n) => holdRequest(baseUrl, stack.rootKey, `in flight ${n}`)));
    const signalledAt = Date.now();
    signalled = true;
    gateway!.child.kill('SIGTERM');
    // The ops port closes first: once it refuses, the gateway is shutting down while the three requests wait for their bodies.
    await eventually(async () => (await fetch(`${opsUrl}/health/live`).then(() => 'open', () => 'closed')) === 'closed', SHUTDOWN_BOUND_MS);

    const answers = await Promise.all(held.map((request) => request.finish()));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201]);
    expect(answers.map((answer) => answer.body.name)).toEqual(['in flight 1', 'in flight 2', 'in flight 3']);
    expect(answers.every((answer) => typeof answer.body.key === 'string')).toBe(true);

    const exit = await gateway!.exited;
    expect({ exit, stderr: gateway!.stderr() }).toEqual({ exit: { code: 0, signal: null }, stderr: expect.any(String) });
    expect(Date.now() - signalledAt).toBeLessThan(SHUTDOWN_BOUND_MS);
    loading = false;
    await loaders;

    // Every request sent before the signal was answered. Requests sent after it are turned away: 503 on a
    // connection being drained, refused once the listener is closed, or reset when written onto a keep-alive
    // connection the server was closing as idle at that instant (ECONNRESET or undici's UND_ERR_SOCKET; HTTP/1.1's close race: the server never
    // received that request; the three held above show that a request it did receive is always answered).
    expect(outcomes.filter((outcome) => outcome.at === 'before').map((outcome) => outcome.result).filter((result) => result !== '200')).toEqual([]);
    const after = outcomes.filter((outcome) => outcome.at === 'after' && outcome.result !== '200').map((outcome) => outcome.result);
    expect(after.filter((result) => !['503', 'ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(result))).toEqual([]);
  }, 60000);
});
