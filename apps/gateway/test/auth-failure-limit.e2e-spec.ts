import { generateApiKey } from '@mailroom/auth';
import { ApiResponse, scrapeMetrics, startExtraGateway, startStack, Stack } from '@mailroom/testing';

const LIMIT = 5;

/**
 * Failed authentications per client address (AUTH_FAILURE_LIMIT) against the
 * real gateway. The gateway trusts 127.0.0.1 as a proxy, so X-Forwarded-For
 * names the client, exactly as ipRestrictions read it: each test plays a
 * client of its own.
 */
describe('failed authentications per client address', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'gateway'], env: { AUTH_FAILURE_LIMIT: String(LIMIT), TRUSTED_PROXIES: '127.0.0.1' } });
  });
  afterAll(() => stack?.stop());

  const from = (client: string, key: string | null, path = '/v1/api-keys', api = stack.api) => api.get(path, { key, headers: { 'x-forwarded-for': client } });

  async function failTimes(client: string, times: number, api = stack.api): Promise<number[]> {
    const statuses: number[] = [];
    for (let index = 0; index < times; index += 1) statuses.push((await from(client, generateApiKey('live'), '/v1/api-keys', api)).status);
    return statuses;
  }

  function expectBlocked(response: ApiResponse) {
    expect(response.status).toBe(429);
    expect(response.body.error).toEqual({ code: 'rate_limited', message: expect.stringMatching(/failed authentications/) });
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  }

  const blockedCount = async () => (await scrapeMetrics(stack.opsUrl('gateway'))).find('mailroom_rate_limited_requests_total', { limit: 'auth_failures' })[0]?.value ?? 0;

  it(`answers ${LIMIT} failures 401, then 429 with Retry-After to every request from that address, a valid key's too`, async () => {
    const blockedBefore = await blockedCount();
    expect(await failTimes('203.0.113.1', LIMIT)).toEqual(Array(LIMIT).fill(401));
    expectBlocked(await from('203.0.113.1', generateApiKey('live')));
    expectBlocked(await from('203.0.113.1', stack.rootKey));
    expect((await blockedCount()) - blockedBefore).toBe(2);
  });

  it(`answers at most ${LIMIT} of many guesses sent at once 401, however they overlap, and the rest 429`, async () => {
    const statuses = await Promise.all(Array.from({ length: LIMIT * 4 }, async () => (await from('203.0.113.10', generateApiKey('live'))).status));
    expect(statuses.filter((status) => status === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(LIMIT * 3);
    expectBlocked(await from('203.0.113.10', stack.rootKey));
  });

  it('neither counts nor blocks a request without an Authorization header: it guesses nothing, and is told 401 as ever', async () => {
    // A browser tab or a probe pointed at an API route sends no key; it must not lock out the address's real clients.
    for (let index = 0; index < LIMIT * 2; index += 1) expect((await from('203.0.113.8', null)).status).toBe(401);
    expect((await from('203.0.113.8', stack.rootKey)).status).toBe(200);
    await failTimes('203.0.113.8', LIMIT);
    expectBlocked(await from('203.0.113.8', stack.rootKey));
    const headerless = await from('203.0.113.8', null);
    expect(headerless.status).toBe(401);
    expect(headerless.body.error.message).toMatch(/Missing Authorization header/);
  });

  it('blocks only that address: other clients go on, with valid keys and failures of their own', async () => {
    await failTimes('203.0.113.2', LIMIT);
    expect((await from('203.0.113.3', stack.rootKey)).status).toBe(200);
    expect((await from('203.0.113.3', generateApiKey('live'))).status).toBe(401);
    expect((await from('203.0.113.2', stack.rootKey)).status).toBe(429);
  });

  it('counts an IPv4 client once whether the proxy forwards it as a.b.c.d or ::ffff:a.b.c.d, and an IPv6 client by its /64', async () => {
    await failTimes('::ffff:203.0.113.4', LIMIT - 1);
    await failTimes('203.0.113.4', 1);
    expectBlocked(await from('::ffff:203.0.113.4', stack.rootKey));
    await failTimes('2001:db8:1:2::1', LIMIT - 1);
    await failTimes('2001:db8:1:2::2', 1);
    expectBlocked(await from('2001:db8:1:2::3', stack.rootKey));
    expect((await from('2001:db8:1:3::1', stack.rootKey)).status).toBe(200);
  });

  it('counts only 401s: refusals of a valid key (403 for its address or permission) and unknown routes do not block', async () => {
    const outside = await stack.issueKey({ ipRestrictions: ['10.0.0.0/8'] });
    const powerless = await stack.issueKey({ permissions: [] });
    for (let index = 0; index < LIMIT; index += 1) {
      expect((await from('203.0.113.5', outside.key)).status).toBe(403);
      expect((await from('203.0.113.5', powerless.key)).status).toBe(403);
      expect((await from('203.0.113.5', generateApiKey('live'), '/v1/nothing-here')).status).toBe(404);
    }
    expect((await from('203.0.113.5', stack.rootKey)).status).toBe(200);
  });

  it('does not count a key once issued, now deleted or expired: a client left on a rotated-out key does not lock its address out', async () => {
    const deleted = await stack.issueKey();
    expect((await stack.api.delete(`/v1/api-keys/${deleted.id}`)).status).toBe(200);
    const expired = await stack.issueKey({ expiresAt: new Date(Date.now() - 60_000).toISOString() });
    for (let index = 0; index < LIMIT * 2; index += 1) {
      expect((await from('203.0.113.9', deleted.key)).body.error.message).toMatch(/unknown or has been deleted/);
      expect((await from('203.0.113.9', expired.key)).body.error.message).toMatch(/has expired/);
    }
    expect((await from('203.0.113.9', stack.rootKey)).status).toBe(200);
    // Guesses from there still count.
    expect(await failTimes('203.0.113.9', LIMIT)).toEqual(Array(LIMIT).fill(401));
    expectBlocked(await from('203.0.113.9', deleted.key));
  });

  it('leaves routes that need no key open to a blocked address, and an unknown route still answers 404', async () => {
    await failTimes('203.0.113.6', LIMIT);
    expect((await from('203.0.113.6', stack.rootKey)).status).toBe(429);
    expect((await from('203.0.113.6', null, '/health/live')).status).toBe(200);
    expect((await from('203.0.113.6', null, '/openapi.json')).status).toBe(200);
    expect((await from('203.0.113.6', stack.rootKey, '/v1/nothing-here')).status).toBe(404);
  });

  it('takes the client address as ipRestrictions do: X-Forwarded-For only from a trusted proxy', async () => {
    const untrusting = await startExtraGateway(stack, { TRUSTED_PROXIES: [] });
    try {
      // Without a trusted proxy every request here comes from 127.0.0.1, whatever it forwards.
      expect(await failTimes('198.51.100.1', LIMIT, untrusting.api)).toEqual(Array(LIMIT).fill(401));
      expect((await from('198.51.100.2', stack.rootKey, '/v1/api-keys', untrusting.api)).status).toBe(429);
    } finally {
      await untrusting.close();
    }
  });

  it('never blocks with AUTH_FAILURE_LIMIT=0', async () => {
    const unlimited = await startExtraGateway(stack, { AUTH_FAILURE_LIMIT: 0 });
    try {
      expect(await failTimes('203.0.113.7', LIMIT * 3, unlimited.api)).toEqual(Array(LIMIT * 3).fill(401));
      expect((await from('203.0.113.7', stack.rootKey, '/v1/api-keys', unlimited.api)).status).toBe(200);
    } finally {
      await unlimited.close();
    }
  });
});
