import { eventually, startStack, Stack } from '@mailroom/testing';

/**
 * Long enough that an answer which waited for it is told apart from one NATS gave at once, and that the domains
 * service can make a domain's DKIM key within it once it is back (over 1 s on a loaded machine). Nothing here waits
 * for it unless the gateway does.
 */
const RPC_TIMEOUT_MS = 10_000;

type Service = 'keys' | 'domains' | 'emails' | 'webhook-dispatcher';

/** A read and a write of each service's routes; the write's body is valid, so only the missing service can refuse it. */
const ROUTES: Record<Service, { read: string; write: [string, () => unknown] }> = {
  keys: { read: '/v1/api-keys', write: ['/v1/api-keys', () => ({ name: 'while down' })] },
  domains: { read: '/v1/domains', write: ['/v1/domains', () => ({ name: `restart-${Date.now()}.example` })] },
  emails: { read: '/v1/emails', write: ['/v1/suppressions', () => ({ email: 'ann@example.com' })] },
  'webhook-dispatcher': { read: '/v1/webhooks', write: ['/v1/webhooks', () => ({ url: 'https://hooks.example.com/restart', events: ['email.sent'] })] },
};

/**
 * A service process goes away (a crash, a rollout) while the gateway stays up:
 * its routes answer 503 service_unavailable at once, GET /health names it,
 * and once it runs again the same gateway serves them, with nothing restarted.
 */
describe('a service stopped and started again behind a running gateway', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ env: { RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) } });
  });
  afterAll(() => stack?.stop());

  it.each(Object.keys(ROUTES) as Service[])('%s: 503 at once while it is down, served again once it is back', async (service) => {
    const { read, write } = ROUTES[service];
    // Authenticated once while keys runs, so the key is cached and the keys case tests its own routes, not the guard.
    expect((await stack.api.get(read)).status).toBe(200);
    await stack.stopApp(service);
    try {
      const started = Date.now();
      for (const response of [await stack.api.get(read), await stack.api.post(write[0], write[1]())]) {
        expect(response.status).toBe(503);
        expect(response.body).toEqual({ error: { code: 'service_unavailable', message: expect.stringMatching(new RegExp(`${service} service is not running`)) } });
      }
      expect(Date.now() - started).toBeLessThan(RPC_TIMEOUT_MS);
      const health = await stack.api.get('/health', { key: null });
      expect(health.status).toBe(503);
      expect(health.body.services[service]).toBe('down');
    } finally {
      await stack.startApp(service);
    }
    expect((await stack.api.get(read)).status).toBe(200);
    expect([201, 202]).toContain((await stack.api.post(write[0], write[1]())).status);
    await eventually(async () => (await stack.api.get('/health', { key: null })).status === 200);
  });
});
