import { startStack, Stack } from '@mailroom/testing';

/**
 * One rule for every PATCH whose fields are all optional: `{}` changes
 * nothing and answers 200 with the resource as it is (as Stripe answers an
 * empty update), so a retried or generated no-op update is harmless. Unknown
 * fields are still 422, so a typo is not mistaken for it.
 */
describe('PATCH with an empty object', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      apps: ['keys', 'domains', 'webhook-dispatcher', 'gateway'],
      // POST /v1/domains generates a 2048-bit RSA key while the gateway waits; slow on a loaded machine.
      env: { DKIM_DNS_BIND: 'off', RPC_TIMEOUT_MS: '20000' },
    });
  });
  afterAll(() => stack?.stop());

  let created = 0;
  const create: Record<string, () => Promise<string>> = {
    'api-keys': async () => (await stack.issueKey({ name: 'unchanged' })).id,
    domains: async () => (await stack.api.post('/v1/domains', { name: `unchanged-${(created += 1)}.example.com` })).body.id,
    webhooks: async () => (await stack.api.post('/v1/webhooks', { url: 'https://hooks.example.com/unchanged', events: ['*'] })).body.id,
  };

  it.each(Object.keys(create))('answers PATCH /v1/%s/{id} {} with 200 and the resource unchanged', async (resource) => {
    const id = await create[resource]();
    expect(id).toEqual(expect.any(String));
    const before = await stack.api.get(`/v1/${resource}/${id}`);
    expect(before.status).toBe(200);
    const patched = await stack.api.patch(`/v1/${resource}/${id}`, {});
    expect({ status: patched.status, body: patched.body }).toEqual({ status: 200, body: before.body });
    expect((await stack.api.get(`/v1/${resource}/${id}`)).body).toEqual(before.body);
  });

  it.each(Object.keys(create))('still refuses PATCH /v1/%s/{id} with an unknown field, or with no body at all', async (resource) => {
    const id = await create[resource]();
    const typo = await stack.api.patch(`/v1/${resource}/${id}`, { nmae: 'x' });
    expect({ status: typo.status, body: typo.body }).toEqual({ status: 422, body: { error: { code: 'validation_error', message: 'nmae: is not a known field' } } });
    const bodiless = await stack.api.request('PATCH', `/v1/${resource}/${id}`);
    expect({ status: bodiless.status, body: bodiless.body }).toEqual({ status: 422, body: { error: { code: 'validation_error', message: 'body: must be a JSON object' } } });
  });
});
