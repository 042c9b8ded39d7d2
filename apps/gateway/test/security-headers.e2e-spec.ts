import { trackingTokensFromConfig } from '@mailroom/auth';
import { rawHttpExchange, startStack, Stack } from '@mailroom/testing';

/** What every answer must carry, as OWASP's REST Security Cheat Sheet asks of an API. */
const EVERY_ANSWER = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/**
 * The security headers of the gateway's answers, whatever route, status or
 * body: a JSON answer is never cached, framed, sniffed as something else, nor
 * sends a referrer; the docs page may run its own scripts and nothing else;
 * what routes choose for themselves (the docs' assets cached an hour, the
 * tracking answers never) stays theirs.
 */
describe('HTTP security headers of the gateway', () => {
  let stack: Stack;
  const tokens = trackingTokensFromConfig({ NODE_ENV: 'test', ENCRYPTION_KEY: null });

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'gateway'] });
  }, 120000);
  afterAll(() => stack?.stop());

  const headersOf = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${stack.baseUrl}${path}`, Object.assign({ redirect: 'manual' } as RequestInit, init));
    await response.arrayBuffer();
    return { status: response.status, headers: Object.fromEntries(response.headers) };
  };

  it.each([
    ['an answer with a key', '/v1/api-keys', 'key', 200],
    ['an error: no key', '/v1/api-keys', 'none', 401],
    ['an error: no such route', '/v1/nowhere', 'key', 404],
    ['the health answer (503: only the keys service runs here)', '/health', 'none', 503],
    ['the OpenAPI document', '/openapi.json', 'none', 200],
  ])('marks %s as never to be cached, framed, sniffed or referred from', async (_what, path, key, status) => {
    const authorization: Record<string, string> = key === 'key' ? { authorization: `Bearer ${stack.rootKey}` } : {};
    const answer = await headersOf(path, { headers: authorization });
    expect(answer.status).toBe(status);
    expect(answer.headers).toMatchObject(
      Object.assign({}, EVERY_ANSWER, {
        'cache-control': 'no-store',
        'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
        'referrer-policy': 'no-referrer',
      }),
    );
  });

  it('answers HEAD with the same headers as GET', async () => {
    const answer = await headersOf('/v1/api-keys', { method: 'HEAD', headers: { authorization: `Bearer ${stack.rootKey}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatchObject(Object.assign({}, EVERY_ANSWER, { 'cache-control': 'no-store' }));
  });

  it('lets the docs page load its own scripts, styles and images, and nothing from elsewhere', async () => {
    const page = await headersOf('/docs');
    expect(page.status).toBe(200);
    expect(page.headers).toMatchObject(Object.assign({}, EVERY_ANSWER, { 'referrer-policy': 'no-referrer' }));
    const policy = page.headers['content-security-policy'].split('; ');
    expect(policy).toEqual(expect.arrayContaining(["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]));
    expect(policy.join('; ')).not.toMatch(/unsafe-eval|\*|https?:/);
    // Its assets keep the hour of caching they ask for.
    const script = await headersOf('/docs/init.js');
    expect(script.headers).toMatchObject(Object.assign({}, EVERY_ANSWER, { 'cache-control': 'public, max-age=3600' }));
  });

  it('keeps the tracking answers their own caching, and leaves the referrer of a clicked link to the reader', async () => {
    const pixel = await headersOf(`/t/o/${tokens.sign({ emailId: 'email_01JB0000000000000000000000', kind: 'open' })}.gif`);
    expect(pixel.status).toBe(200);
    expect(pixel.headers).toMatchObject(Object.assign({}, EVERY_ANSWER, { 'content-type': 'image/gif' }));
    expect(pixel.headers['cache-control']).toMatch(/no-cache/);

    const click = await headersOf(`/t/c/${tokens.sign({ emailId: 'email_01JB0000000000000000000000', kind: 'click', url: 'https://acme.test/pricing' })}`);
    expect(click.status).toBe(302);
    expect(click.headers).toMatchObject(EVERY_ANSWER);
    expect(click.headers['cache-control']).toMatch(/no-cache/);
    // The destination sees what it would have seen without the redirect (the page the link was on): a no-referrer
    // here would take that from the sender's own site analytics, and the tracking URL is never the referrer anyway.
    expect(click.headers['referrer-policy']).toBeUndefined();
  });

  it.each([
    ['a control character in a header', 'GET /v1/api-keys HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n', 400],
    ['headers over the size limit', `GET /v1/api-keys HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    ['a URL over the size limit', `GET /v1/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414],
    ['no Host header', 'GET /v1/api-keys HTTP/1.1\r\n\r\n', 400],
    ['an expectation other than 100-continue', 'POST /v1/api-keys HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}', 417],
  ])('marks the answer to a request with %s the same, though it never reaches a route', async (_what, request, status) => {
    // Written straight to the socket when Node's parser gives up: no Fastify hook adds to those.
    const answer = await rawHttpExchange(stack.baseUrl, request);
    expect(answer.status).toBe(status);
    expect(answer.body.error.code).toEqual(expect.any(String));
    expect(answer.headers).toMatchObject(
      Object.assign({}, EVERY_ANSWER, {
        'cache-control': 'no-store',
        'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
        'referrer-policy': 'no-referrer',
      }),
    );
  });
});
