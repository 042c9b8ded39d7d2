import { Agent, get } from 'node:http';
import { eventually, Stack, startDatabaseOutage, startStack } from '@mailroom/testing';

interface OpsAnswer {
  status: number;
  body: any;
}

async function ops(url: string): Promise<OpsAnswer> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

/** Every app's operations port (HEALTH_PORT): liveness, and readiness that follows NATS and Postgres. */
describe('ops port health', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  it('is ready and live on every app while NATS and Postgres answer', async () => {
    for (const app of ['gateway', 'keys', 'domains', 'emails', 'webhook-dispatcher'] as const) {
      const ready = await ops(`${stack.opsUrl(app)}/health/ready`);
      expect({ app, ...ready }).toEqual({ app, status: 200, body: { status: 'ok', checks: expect.objectContaining({ nats: 'ok' }) } });
      expect(await ops(`${stack.opsUrl(app)}/health/live`)).toEqual({ status: 200, body: { status: 'ok' } });
    }
    expect((await ops(`${stack.opsUrl('emails')}/health/ready`)).body.checks).toEqual({ nats: 'ok', database: 'ok' });
  });

  it('turns unready (503, nats down) while NATS is stopped, stays live, and is ready again once NATS is back', async () => {
    await stack.nats.stop();
    try {
      for (const app of ['gateway', 'emails'] as const) {
        const unready = await eventually(async () => {
          const answer = await ops(`${stack.opsUrl(app)}/health/ready`);
          return answer.status === 503 ? answer : undefined;
        });
        expect(unready.body).toEqual({ status: 'unavailable', checks: expect.objectContaining({ nats: 'down' }) });
        expect(await ops(`${stack.opsUrl(app)}/health/live`)).toEqual({ status: 200, body: { status: 'ok' } });
      }
      // Postgres is still up: only NATS is named as down.
      expect((await ops(`${stack.opsUrl('emails')}/health/ready`)).body.checks).toEqual({ nats: 'down', database: 'ok' });
      // An API call in the meantime is a 503 to retry, not a 500.
      const call = await stack.api.get('/v1/api-keys');
      expect(call.status).toBe(503);
      expect(call.body).toEqual({ error: { code: 'service_unavailable', message: expect.stringMatching(/NATS|did not answer/) } });
    } finally {
      await stack.nats.restart();
    }
    for (const app of ['gateway', 'emails'] as const) {
      await eventually(async () => (await ops(`${stack.opsUrl(app)}/health/ready`)).status === 200, 15000);
    }
    // The services reconnected too: the gateway's public health sees all of them again.
    await eventually(async () => (await stack.api.get('/health', { key: null })).status === 200, 15000);
  });

  it('turns the database apps unready (503, database down) while Postgres refuses connections, keeps the gateway ready, and recovers', async () => {
    const databaseApps = ['keys', 'domains', 'emails', 'webhook-dispatcher'] as const;
    const outage = await startDatabaseOutage(stack.databaseUrl);
    try {
      for (const app of databaseApps) {
        const unready = await eventually(async () => {
          const answer = await ops(`${stack.opsUrl(app)}/health/ready`);
          return answer.status === 503 ? answer : undefined;
        });
        expect({ app, ...unready.body }).toEqual({ app, status: 'unavailable', checks: { nats: 'ok', database: 'down' } });
        expect(await ops(`${stack.opsUrl(app)}/health/live`)).toEqual({ status: 200, body: { status: 'ok' } });
      }
      // The gateway holds no database connection: it stays in rotation and answers 503 per request instead.
      expect(await ops(`${stack.opsUrl('gateway')}/health/ready`)).toEqual({ status: 200, body: { status: 'ok', checks: { nats: 'ok' } } });
    } finally {
      await outage.end();
    }
    for (const app of databaseApps) {
      await eventually(async () => (await ops(`${stack.opsUrl(app)}/health/ready`)).status === 200, 15000);
    }
  });

  it('closes the ops port at once when the app stops, even with a scraper holding a keep-alive connection', async () => {
    const url = new URL(`${stack.opsUrl('keys')}/metrics`);
    const agent = new Agent({ keepAlive: true });
    let status = 0;
    const socketClosed = new Promise<void>((resolve, reject) => {
      const request = get(url, { agent }, (response) => {
        status = response.statusCode ?? 0;
        response.resume();
      });
      request.on('error', reject);
      request.on('socket', (socket) => socket.once('close', () => resolve()));
    });
    // The answer is read and the connection waits, idle, in the agent's pool.
    await eventually(() => Object.keys(agent.freeSockets).length === 1);
    expect(status).toBe(200);
    const started = Date.now();
    await stack.stopApp('keys');
    expect(Date.now() - started).toBeLessThan(3000);
    await socketClosed;
    agent.destroy();
    await expect(fetch(url)).rejects.toThrow();
    await stack.startApp('keys');
  });
});
