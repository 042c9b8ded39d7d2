import { request as httpRequest } from 'node:http';
import { generateApiKey } from '@mailroom/auth';
import { eventually, ExtraGateway, startExtraGateway, startStack, Stack } from '@mailroom/testing';

/** GET /v1/api-keys with headers exactly as given, repeated ones included (fetch would join them into one). */
function withRawHeaders(baseUrl: string, headers: string[][]): Promise<{ status: number; body: string }> {
  const url = new URL(`${baseUrl}/v1/api-keys`);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, headers: [['host', url.host], ...headers].flat() }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** The interface's authentication rules 1–6 against the real gateway and keys service. */
describe('authentication of /v1 routes', () => {
  let stack: Stack;

  beforeAll(async () => {
    // This suite sends more than twenty refused keys from 127.0.0.1 in a minute; the limit on failures has its own suite.
    stack = await startStack({ apps: ['keys', 'gateway'], env: { AUTH_FAILURE_LIMIT: '0' } });
  });
  afterAll(() => stack?.stop());

  const listWith = (key: string | null, headers?: Record<string, string>, api = stack.api) => api.get('/v1/api-keys', { key, headers });

  function expectUnauthorized(response: { status: number; body: any }) {
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
  }

  it('accepts a valid key', async () => {
    expect((await listWith(stack.rootKey)).status).toBe(200);
  });

  it('reads the scheme in any case, as RFC 7235 §2.1 has it', async () => {
    for (const scheme of ['bearer', 'BEARER']) {
      expect({ scheme, status: (await stack.api.get('/v1/api-keys', { key: null, headers: { authorization: `${scheme} ${stack.rootKey}` } })).status }).toEqual({ scheme, status: 200 });
    }
  });

  describe('401 unauthorized', () => {
    it('without an Authorization header', async () => {
      const response = await listWith(null);
      expectUnauthorized(response);
      expect(response.body.error.message).toMatch(/Authorization/);
    });

    it.each([
      ['another scheme', (key: string) => `Basic ${key}`],
      ['no scheme', (key: string) => key],
      ['an empty bearer', () => 'Bearer '],
    ])('with %s in the header', async (_label, header) => {
      expectUnauthorized(await stack.api.get('/v1/api-keys', { key: null, headers: { authorization: header(stack.rootKey) } }));
    });

    it.each([
      ['the valid one first', (valid: string, other: string) => [valid, other]],
      ['the valid one last', (valid: string, other: string) => [other, valid]],
      ['the same key twice', (valid: string) => [valid, valid]],
    ])('with two Authorization headers (%s), since which one a proxy checked is a guess', async (_label, order) => {
      const other = (await stack.issueKey({ name: 'other', permissions: [] })).key;
      const response = await withRawHeaders(stack.baseUrl, order(stack.rootKey, other).map((key) => ['authorization', `Bearer ${key}`]));
      expect(response.status).toBe(401);
      expect(JSON.parse(response.body)).toEqual({ error: { code: 'unauthorized', message: expect.stringMatching(/one Authorization header/) } });
    });

    it('with a key of another prefix', async () => {
      expectUnauthorized(await listWith(`sk_${stack.rootKey.slice(3)}`));
      expectUnauthorized(await listWith(`mr_live_${stack.rootKey.slice(3)}`));
    });

    it('with a key whose checksum fails (one character flipped)', async () => {
      const key = stack.rootKey;
      const at = 10;
      const flipped = key.slice(0, at) + (key[at] === 'A' ? 'B' : 'A') + key.slice(at + 1);
      const response = await listWith(flipped);
      expectUnauthorized(response);
      expect(response.body.error.message).toMatch(/malformed/);
    });

    it.each([
      ['truncated by one character', (key: string) => key.slice(0, -1)],
      ['with one character more', (key: string) => `${key}0`],
      ["with a live key's body under the test prefix", (key: string) => `mr_test_${key.slice(3)}`],
      ['that is the prefix alone', () => 'mr_'],
      ['8,000 characters long', () => `mr_${'a'.repeat(8000)}`],
      ['with a character outside base62', (key: string) => `${key.slice(0, 10)}é${key.slice(11)}`],
      // A no-break space copied with the key from a web page: the byte 0xA0, which is no whitespace of HTTP's.
      ['followed by a no-break space', (key: string) => `${key}\u00a0`],
    ])('with a key %s, as malformed, before any lookup', async (_label, spoil) => {
      const response = await listWith(spoil(stack.rootKey));
      expectUnauthorized(response);
      expect(response.body.error.message).toMatch(/malformed/);
    });

    it('with a second token after the key', async () => {
      expectUnauthorized(await stack.api.get('/v1/api-keys', { key: null, headers: { authorization: `Bearer ${stack.rootKey} ${stack.rootKey}` } }));
    });

    it('with a well-formed key nobody issued', async () => {
      const response = await listWith(generateApiKey('live'));
      expectUnauthorized(response);
      expect(response.body.error.message).toMatch(/unknown/);
    });

    it('with a deleted key', async () => {
      const created = await stack.api.post('/v1/api-keys', { name: 'doomed' });
      expect((await listWith(created.body.key)).status).toBe(200);
      await stack.api.delete(`/v1/api-keys/${created.body.id}`);
      expectUnauthorized(await listWith(created.body.key));
    });

    it('with a key once its expiresAt has passed', async () => {
      // Time enough for the creation and the first request to finish before it expires, on a loaded CI machine too.
      const created = await stack.api.post('/v1/api-keys', { name: 'brief', expiresAt: new Date(Date.now() + 4000).toISOString() });
      expect(created.status).toBe(201);
      expect((await listWith(created.body.key)).status).toBe(200);
      const expired = await eventually(async () => {
        const response = await listWith(created.body.key);
        return response.status === 401 ? response : undefined;
      }, 15_000, 100);
      expect(expired.body.error.message).toMatch(/expired/);
    });

    it('with a test key while TEST_MODE_ENABLED=false, though live keys still work there', async () => {
      const noTestMode = await startExtraGateway(stack, { TEST_MODE_ENABLED: false });
      try {
        const testKey = await stack.issueKey({ mode: 'test' });
        expect((await listWith(testKey.key)).status).toBe(200);
        const refused = await listWith(testKey.key, undefined, noTestMode.api);
        expectUnauthorized(refused);
        expect(refused.body.error.message).toMatch(/TEST_MODE_ENABLED/);
        expect((await listWith(stack.rootKey, undefined, noTestMode.api)).status).toBe(200);
      } finally {
        await noTestMode.close();
      }
    });
  });

  describe('403 forbidden for a missing permission', () => {
    it('names the permission /v1/api-keys needs', async () => {
      const key = await stack.issueKey({ permissions: ['emails:send', 'domains:*'] });
      for (const response of [
        await listWith(key.key),
        await stack.api.post('/v1/api-keys', { name: 'x' }, { key: key.key }),
        await stack.api.get(`/v1/api-keys/key_01ARZ3NDEKTSV4RRFFQ69G5FAV`, { key: key.key }),
      ]) {
        expect(response.status).toBe(403);
        expect(response.body.error).toEqual({ code: 'forbidden', message: expect.stringContaining('api-keys:*') });
      }
    });

    it('lets api-keys:* and * through', async () => {
      expect((await listWith((await stack.issueKey({ permissions: ['api-keys:*'] })).key)).status).toBe(200);
      expect((await listWith((await stack.issueKey({ permissions: ['*'] })).key)).status).toBe(200);
    });
  });

  describe('403 forbidden outside ipRestrictions', () => {
    it('refuses 127.0.0.1 for a key limited to 10.0.0.0/8, with a message about the IP address', async () => {
      const key = await stack.issueKey({ ipRestrictions: ['10.0.0.0/8'] });
      const response = await listWith(key.key);
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('forbidden');
      expect(response.body.error.message).toMatch(/IP address 127\.0\.0\.1/);
    });

    it('accepts 127.0.0.1 for a key limited to 127.0.0.1/32 or a list that covers it', async () => {
      expect((await listWith((await stack.issueKey({ ipRestrictions: ['127.0.0.1/32'] })).key)).status).toBe(200);
      expect((await listWith((await stack.issueKey({ ipRestrictions: ['10.0.0.0/8', '127.0.0.0/8'] })).key)).status).toBe(200);
    });

    it('matches IPv6 clients against IPv6 restrictions', async () => {
      const ipv6 = await startExtraGateway(stack, { HOST: '::1' });
      try {
        expect(ipv6.baseUrl).toMatch(/^http:\/\/\[::1\]:/);
        const loopback6 = await stack.issueKey({ ipRestrictions: ['::1/128'] });
        expect((await listWith(loopback6.key, undefined, ipv6.api)).status).toBe(200);
        expect((await listWith(loopback6.key)).status).toBe(403);
        const other6 = await stack.issueKey({ ipRestrictions: ['2001:db8::/32', '127.0.0.1'] });
        const refused = await listWith(other6.key, undefined, ipv6.api);
        expect(refused.status).toBe(403);
        expect(refused.body.error.message).toMatch(/IP address ::1/);
      } finally {
        await ipv6.close();
      }
    });

    describe('X-Forwarded-For', () => {
      let trusting: ExtraGateway;
      let key: string;

      beforeAll(async () => {
        trusting = await startExtraGateway(stack, { TRUSTED_PROXIES: ['127.0.0.1'] });
        key = (await stack.issueKey({ ipRestrictions: ['203.0.113.0/24'] })).key;
      });
      afterAll(() => trusting?.close());

      it('is honoured when the connecting address is a trusted proxy', async () => {
        expect((await listWith(key, { 'x-forwarded-for': '203.0.113.7' }, trusting.api)).status).toBe(200);
        const outside = await listWith(key, { 'x-forwarded-for': '198.51.100.1' }, trusting.api);
        expect(outside.status).toBe(403);
        expect(outside.body.error.message).toMatch(/IP address 198\.51\.100\.1/);
      });

      it('reads an address a proxy wrote with its port (as Azure Application Gateway does)', async () => {
        expect((await listWith(key, { 'x-forwarded-for': '203.0.113.7:54321' }, trusting.api)).status).toBe(200);
        const outside = await listWith(key, { 'x-forwarded-for': '198.51.100.1:443' }, trusting.api);
        expect(outside.status).toBe(403);
        expect(outside.body.error.message).toMatch(/IP address 198\.51\.100\.1 /);
      });

      // A peer in TRUSTED_PROXIES may forward what it was sent (or be a client itself, when the range holds both).
      it('quotes a forwarded value that is no address as client text is quoted: cut to 64 characters, controls escaped', async () => {
        const forwarded = `no\taddress\u0085${'x'.repeat(5000)}`;
        const outside = await listWith(key, { 'x-forwarded-for': forwarded }, trusting.api);
        expect(outside.status).toBe(403);
        const { message } = outside.body.error;
        expect(message).toMatch(/IP address "no\\taddress\\u0085x+…" \(5011 characters\) are not authorized/);
        expect(message.length).toBeLessThan(200);
      });

      it('takes the address the trusted proxy saw, not one the client prepended', async () => {
        expect((await listWith(key, { 'x-forwarded-for': '203.0.113.7, 198.51.100.1' }, trusting.api)).status).toBe(403);
      });

      it('is ignored when no proxy is trusted', async () => {
        const response = await listWith(key, { 'x-forwarded-for': '203.0.113.7' });
        expect(response.status).toBe(403);
        expect(response.body.error.message).toMatch(/IP address 127\.0\.0\.1/);
      });
    });
  });
});
