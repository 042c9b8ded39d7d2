import { startStack, Stack, eventually } from '@mailroom/testing';

describe('GET /health', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  it('answers 200 with every service ok once all answer over NATS', async () => {
    const response = await stack.api.get('/health', { key: null });
    expect(response.status).toBe(200);
    expect(response.body.services).toEqual({ keys: 'ok', domains: 'ok', emails: 'ok', 'webhook-dispatcher': 'ok' });
  });

  it('answers 503 naming the service that stopped answering, and 200 again once it is back', async () => {
    await stack.stopApp('domains');
    const down = await eventually(async () => {
      const response = await stack.api.get('/health', { key: null });
      return response.status === 503 ? response : undefined;
    });
    expect(down.body.services.domains).toBe('down');
    expect(down.body.services.keys).toBe('ok');
    await stack.startApp('domains');
    await eventually(async () => (await stack.api.get('/health', { key: null })).status === 200);
  });

  it('answers unknown routes with 404 not_found in the error shape', async () => {
    const response = await stack.api.get('/v1/nothing-here');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
  });
});
