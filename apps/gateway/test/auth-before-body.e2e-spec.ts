import { connect, Socket } from 'node:net';
import { generateApiKey } from '@mailroom/auth';
import { ApiResponse, startStack, Stack } from '@mailroom/testing';

const BODY_LIMIT_BYTES = 2048;
const BAD_JSON = '{bad';
const OVERSIZED_JSON = JSON.stringify({ padding: 'x'.repeat(BODY_LIMIT_BYTES * 2) });

/**
 * Who is asking is settled before what they sent is read: the key is checked
 * (401), then the client address (403), then the permission (403), and only
 * then the body's media type (415), size (413) and JSON (400).
 */
describe('authentication and authorisation before the body', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'gateway'], env: { BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) } });
  });
  afterAll(() => stack?.stop());

  /** A POST whose body is sent as given; `key: null` sends no Authorization header. */
  const send = (path: string, key: string | null, contentType: string, rawBody: string) =>
    stack.api.request('POST', path, { key, rawBody, headers: { 'content-type': contentType } });

  function expectError(response: ApiResponse, status: number, code: string, message?: RegExp) {
    expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
    if (message) expect(response.body.error.message).toMatch(message);
  }

  describe('401 unauthorized, whatever the body', () => {
    it('without an Authorization header and a body that is not JSON', async () => {
      expectError(await send('/v1/emails', null, 'text/plain', 'x'), 401, 'unauthorized', /Authorization/);
    });

    it('without an Authorization header and malformed JSON', async () => {
      expectError(await send('/v1/emails', null, 'application/json', BAD_JSON), 401, 'unauthorized', /Authorization/);
    });

    it('without an Authorization header and a body over BODY_LIMIT_BYTES', async () => {
      expectError(await send('/v1/emails', null, 'application/json', OVERSIZED_JSON), 401, 'unauthorized');
    });

    it('with a malformed key and malformed JSON or a __proto__ key', async () => {
      expectError(await send('/v1/emails', 'mr_garbage', 'application/json', BAD_JSON), 401, 'unauthorized', /malformed/);
      expectError(await send('/v1/api-keys', 'mr_garbage', 'application/json', '{"__proto__":{}}'), 401, 'unauthorized', /malformed/);
    });

    it('with a well-formed key nobody issued and a bad body', async () => {
      expectError(await send('/v1/emails', generateApiKey('live'), 'application/json', BAD_JSON), 401, 'unauthorized', /unknown/);
      expectError(await send('/v1/emails', generateApiKey('live'), 'text/plain', 'x'), 401, 'unauthorized', /unknown/);
    });

    it('with a deleted key and a bad body', async () => {
      const doomed = await stack.issueKey({ name: 'doomed' });
      expect((await stack.api.delete(`/v1/api-keys/${doomed.id}`)).status).toBe(200);
      expectError(await send('/v1/emails', doomed.key, 'application/json', BAD_JSON), 401, 'unauthorized', /unknown or has been deleted/);
      expectError(await send('/v1/api-keys', doomed.key, 'text/plain', 'x'), 401, 'unauthorized', /unknown or has been deleted/);
    });
  });

  describe('403 forbidden, whatever the body', () => {
    it('for a client address outside the key\'s ipRestrictions', async () => {
      const { key } = await stack.issueKey({ ipRestrictions: ['10.0.0.0/8'] });
      expectError(await send('/v1/emails', key, 'application/json', BAD_JSON), 403, 'forbidden', /IP address 127\.0\.0\.1/);
      expectError(await send('/v1/emails', key, 'text/plain', 'x'), 403, 'forbidden', /IP address/);
      expectError(await send('/v1/emails', key, 'application/json', OVERSIZED_JSON), 403, 'forbidden', /IP address/);
    });

    it('for a key without the permission the route needs, naming it', async () => {
      const { key } = await stack.issueKey({ permissions: ['emails:read'] });
      expectError(await send('/v1/emails', key, 'application/json', BAD_JSON), 403, 'forbidden', /emails:send/);
      expectError(await send('/v1/emails', key, 'text/plain', 'x'), 403, 'forbidden', /emails:send/);
      expectError(await send('/v1/api-keys', key, 'application/json', OVERSIZED_JSON), 403, 'forbidden', /api-keys:\*/);
    });
  });

  describe('body errors once the caller may call the route', () => {
    it('answers malformed JSON with 400 invalid_json', async () => {
      expectError(await send('/v1/emails', stack.rootKey, 'application/json', BAD_JSON), 400, 'invalid_json', /not valid JSON/);
      expectError(await send('/v1/api-keys', stack.rootKey, 'application/json', '{"__proto__":{}}'), 400, 'invalid_json', /__proto__/);
    });

    it('answers a text/plain body with 415 unsupported_media_type', async () => {
      expectError(await send('/v1/emails', stack.rootKey, 'text/plain', 'x'), 415, 'unsupported_media_type');
    });

    it('answers a body over BODY_LIMIT_BYTES with 413 payload_too_large', async () => {
      expectError(await send('/v1/emails', stack.rootKey, 'application/json', OVERSIZED_JSON), 413, 'payload_too_large');
    });
  });

  describe('Expect: 100-continue', () => {
    /** The status lines the server has sent so far, read off a raw connection (fetch never sends Expect). */
    function statusLines(received: string): string[] {
      return received.split('\r\n').filter((line) => /^HTTP\/1\.1 \d{3}/.test(line));
    }

    /** Sends the headers of a POST that announces a body and waits for the server to say something (or close). */
    async function askToContinue(headers: string, contentLength: number, expectation = '100-continue'): Promise<{ socket: Socket; received: () => string; next: (predicate: (text: string) => boolean) => Promise<void> }> {
      const { hostname, port } = new URL(stack.api.baseUrl);
      const socket = connect(Number(port), hostname);
      let text = '';
      let closed = false;
      const waiters: (() => void)[] = [];
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
        waiters.forEach((wake) => wake());
      });
      socket.on('close', () => {
        closed = true;
        waiters.forEach((wake) => wake());
      });
      socket.on('error', () => undefined);
      const next = (predicate: (received: string) => boolean) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no answer; received so far: ${JSON.stringify(text)}`)), 5000);
          const check = () => {
            if (predicate(text) || closed) {
              clearTimeout(timer);
              resolve();
            }
          };
          waiters.push(check);
          check();
        });
      socket.write(`POST /v1/api-keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\nExpect: ${expectation}\r\n${headers}\r\n`);
      return { socket, received: () => text, next };
    }

    it('answers 401 at once, without inviting the body, when the key is missing or unknown', async () => {
      for (const authorization of ['', `Authorization: Bearer ${generateApiKey('live')}\r\n`]) {
        const exchange = await askToContinue(authorization, 1000);
        await exchange.next((text) => statusLines(text).length > 0 && text.includes('\r\n\r\n{'));
        exchange.socket.destroy();
        expect(statusLines(exchange.received())).toEqual(['HTTP/1.1 401 Unauthorized']);
      }
    });

    it('answers 413 without inviting a body announced over BODY_LIMIT_BYTES', async () => {
      const exchange = await askToContinue(`Authorization: Bearer ${stack.rootKey}\r\n`, BODY_LIMIT_BYTES + 1);
      await exchange.next((text) => statusLines(text).length > 0 && text.includes('\r\n\r\n{'));
      exchange.socket.destroy();
      expect(statusLines(exchange.received())).toEqual(['HTTP/1.1 413 Payload Too Large']);
    });

    it('invites the body of a caller that may call the route, and then reads it', async () => {
      const body = '{"name":"continued"}';
      const exchange = await askToContinue(`Authorization: Bearer ${stack.rootKey}\r\n`, Buffer.byteLength(body));
      await exchange.next((text) => text.includes('100 Continue'));
      exchange.socket.write(body);
      await exchange.next((text) => statusLines(text).length > 1 && text.includes('"continued"'));
      exchange.socket.destroy();
      expect(statusLines(exchange.received())).toEqual(['HTTP/1.1 100 Continue', 'HTTP/1.1 201 Created']);
    });

    it('invites the body of an Expect that names 100-continue among others, which Node holds for the invitation as it does the plain one', async () => {
      const body = '{"name":"continued in a list"}';
      const exchange = await askToContinue(`Authorization: Bearer ${stack.rootKey}\r\n`, Buffer.byteLength(body), '100-continue, x-trace');
      try {
        await exchange.next((text) => text.includes('100 Continue'));
        exchange.socket.write(body);
        await exchange.next((text) => statusLines(text).length > 1 && text.includes('"continued in a list"'));
      } finally {
        // Left open, a request still waiting for its body would hold the stack's shutdown after a failure.
        exchange.socket.destroy();
      }
      expect(statusLines(exchange.received())).toEqual(['HTTP/1.1 100 Continue', 'HTTP/1.1 201 Created']);
    });
  });

  describe('routes that need no key stay open', () => {
    it.each(['/health', '/health/live', '/openapi.json', '/t/o/not-a-token.gif', '/t/c/not-a-token'])('GET %s answers without 401', async (path) => {
      const response = await stack.api.get(path, { key: null });
      expect(response.status).not.toBe(401);
      expect(response.status).not.toBe(403);
    });

    it('an unknown route answers 404 without a key, as before', async () => {
      expectError(await stack.api.get('/v1/nothing-here', { key: null }), 404, 'not_found');
    });
  });

  describe('a path that names nothing is 404 before the key and the body', () => {
    it.each([
      ['/v1/nope', null, 'text/plain', 'x'],
      ['/v1/nope', 'root', 'application/json', BAD_JSON],
      ['/nope', null, 'application/json', OVERSIZED_JSON],
    ])('POST %s (key: %s, %s)', async (path, key, contentType, body) => {
      expectError(await send(path, key === 'root' ? stack.rootKey : null, contentType, body), 404, 'not_found');
    });

    it.each([
      ['/health', 'text/plain', 'x'],
      ['/t/c/abc', 'text/plain', 'x'],
      ['/v1/domains/dom_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'application/json', OVERSIZED_JSON],
    ])('and a path served under other methods only is 405: POST %s (no key, %s)', async (path, contentType, body) => {
      const response = await send(path, null, contentType, body);
      expectError(response, 405, 'method_not_allowed');
      expect(response.headers.get('allow')).toMatch(/^[A-Z, ]+$/);
    });

    it.each([
      ['GET', '/v1/emails/'],
      ['PATCH', '/v1/emails/'],
      ['DELETE', '/v1/webhooks/'],
      ['GET', '/v1/api-keys/'],
      ['DELETE', '/v1/suppressions/'],
      ['POST', '/v1/emails//cancel'],
      ['GET', '/v1/webhooks//deliveries'],
    ])('%s %s, whose id is empty, with no key, or with a key and a bad body', async (method, path) => {
      expectError(await stack.api.request(method, path, { key: null }), 404, 'not_found');
      const badBody = method === 'GET' ? {} : { rawBody: '{x', headers: { 'content-type': 'text/plain' } };
      expectError(await stack.api.request(method, path, badBody), 404, 'not_found', /is empty/);
    });
  });
});
