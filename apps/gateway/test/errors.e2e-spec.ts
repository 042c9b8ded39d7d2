import { connect } from 'nats';
import { Client } from 'pg';
import { KeysSubjects } from '@mailroom/contracts';
import { eventually, rawHttpExchange, startDatabaseOutage, startStack, Stack } from '@mailroom/testing';

/**
 * Short, so the hung-service case is quick, yet long enough that a healthy keys service under the load
 * of the whole suite (a new pool connection after the outage case, two workers) still answers in time.
 */
const RPC_TIMEOUT_MS = 1500;

const UNKNOWN_KEY_ID = 'key_01ARZ3NDEKTSV4RRFFQ69G5FAV';

/** Every error answer has the shape { error: { code, message } } and the status of its code. */
describe('error answers', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'gateway'], env: { BODY_LIMIT_BYTES: '2048', RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) } });
  });
  afterAll(() => stack?.stop());

  function expectError(response: { status: number; body: any }, status: number, code: string) {
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error: { code, message: expect.any(String) } });
  }

  /** Status, content type and body: the headers are the security-headers suite's. */
  const rawExchange = (request: string) => rawHttpExchange(stack.api.baseUrl, request).then(({ headers: _headers, ...answer }) => answer);

  describe('404 not_found', () => {
    it.each([
      ['GET', '/v1/nothing-here'],
      ['GET', '/'],
      ['PUT', '/v1/nothing-here'],
      ['POST', '/v2/api-keys'],
      ['DELETE', '/v1/emails/'],
    ])('for the unknown route %s %s', async (method, path) => {
      const response = await stack.api.request(method, path);
      expectError(response, 404, 'not_found');
      expect(response.headers.get('allow')).toBeNull();
    });

    it.each([
      ['bad percent-encoding', '/v1/api-keys/%ff'],
      ['a truncated UTF-8 sequence', '/v1/api-keys/%E0%A4%A'],
      ['a segment longer than any route takes', `/v1/api-keys/${'k'.repeat(5000)}`],
      ['a NUL character in an id', '/v1/domains/dom_%00'],
    ])('for a path that can name nothing (%s), in the same error shape', async (_what, path) => {
      expectError(await stack.api.get(path), 404, 'not_found');
    });

    it('for an unknown id, naming it', async () => {
      const response = await stack.api.get('/v1/api-keys/key_01ARZ3NDEKTSV4RRFFQ69G5FAV');
      expectError(response, 404, 'not_found');
      expect(response.body.error.message).toContain('key_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    });

    it('for an unknown id holding CR/LF, naming it JSON-escaped rather than raw', async () => {
      const response = await stack.api.get('/v1/api-keys/key_a%0D%0Ab');
      expectError(response, 404, 'not_found');
      expect(response.body.error.message).toBe('No API key with id "key_a\\r\\nb" exists.');
    });
  });

  describe('405 method_not_allowed', () => {
    it.each([
      ['PUT', '/v1/emails', 'GET, HEAD, POST'],
      ['DELETE', '/v1/emails/email_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'GET, HEAD, PATCH'],
      ['PUT', '/v1/api-keys', 'GET, HEAD, POST'],
      ['POST', '/v1/domains/dom_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'DELETE, GET, HEAD, PATCH'],
      ['GET', '/v1/domains/dom_01ARZ3NDEKTSV4RRFFQ69G5FAV/verify', 'POST'],
      // Percent-encoded, as Fastify routes it: GET /v1/%65mails lists emails.
      ['PUT', '/v1/%65mails', 'GET, HEAD, POST'],
    ])('for %s %s, with the methods the path takes in Allow', async (method, path, allow) => {
      const response = await stack.api.request(method, path);
      expectError(response, 405, 'method_not_allowed');
      expect(response.headers.get('allow')).toBe(allow);
      expect(response.body.error.message).toBe(`${method} is not allowed here; this path takes ${allow}.`);
    });

    it('answers it whoever asks, as a 404 is, before the key and the body', async () => {
      const response = await stack.api.request('PUT', '/v1/emails', { key: null, rawBody: 'x', headers: { 'content-type': 'text/plain' } });
      expectError(response, 405, 'method_not_allowed');
      expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
    });

    it('serves HEAD where Allow lists it', async () => {
      expect((await stack.api.request('HEAD', '/v1/api-keys')).status).toBe(200);
    });

    it('answers CONNECT, which reaches no route, as any method a path is not served with, then closes', async () => {
      // Node hands CONNECT to the server's 'connect' listeners; with none it closed the connection unanswered.
      const response = await rawHttpExchange(stack.api.baseUrl, 'CONNECT /v1/emails HTTP/1.1\r\nHost: x\r\n\r\n');
      expectError(response, 405, 'method_not_allowed');
      expect(response.headers.allow).toBe('GET, HEAD, POST');
      expect(response.headers.connection).toBe('close');
      expect(response.body.error.message).toBe('CONNECT is not allowed here; this path takes GET, HEAD, POST.');
    });

    it('answers CONNECT to a host and port, which names no path of the API, with 404', async () => {
      const response = await rawHttpExchange(stack.api.baseUrl, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
      expectError(response, 404, 'not_found');
      expect(response.headers.allow).toBeUndefined();
    });
  });

  describe('requests that are not valid HTTP', () => {
    it.each([
      ['a control character in a header', 'GET /v1/api-keys HTTP/1.1\r\nHost: x\r\nX-Odd: a\u0001b\r\n\r\n'],
      ['a Content-Length that is no number', 'POST /v1/api-keys HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
      ['broken chunked encoding', 'POST /v1/api-keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
    ])('answers %s with 400 in the API shape', async (_what, request) => {
      const response = await rawExchange(request);
      expect(response).toEqual({
        status: 400,
        contentType: 'application/json; charset=utf-8',
        body: { error: { code: 'invalid_json', message: expect.stringMatching(/^The request is not valid HTTP\/1\.1 \(HPE_[A-Z_]+\)\.$/) } },
      });
    });

    it.each([
      ['no Host header', 'GET /v1/api-keys HTTP/1.1\r\n\r\n', 'The request is not valid HTTP/1.1: it has no Host header (RFC 9112 §3.2).'],
      ['two Host headers', 'GET /v1/api-keys HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n', 'The request is not valid HTTP/1.1: it has 2 Host headers, which name different servers or the same one twice (RFC 9112 §3.2).'],
    ])('answers an HTTP/1.1 request with %s with 400 in the API shape, then closes', async (_what, request, message) => {
      // Node answered these itself: a 400 with an empty body.
      const response = await rawExchange(request);
      expect(response).toEqual({ status: 400, contentType: 'application/json; charset=utf-8', body: { error: { code: 'invalid_json', message } } });
    });

    it.each([
      ['after the path', '/v1/emails#x'],
      ['after the query', '/v1/emails?limit=5#top'],
      ['on a tracking route', '/t/o/token#x'],
    ])('answers a request target with a fragment %s with 400 saying so, not an unknown field, then closes', async (_where, target) => {
      // A client keeps the fragment; the router read what followed `#` as the query (422 "x: is not a known field").
      const { headers, ...response } = await rawHttpExchange(stack.api.baseUrl, `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(headers.connection).toBe('close');
      expect(response).toEqual({
        status: 400,
        contentType: 'application/json; charset=utf-8',
        body: { error: { code: 'invalid_json', message: 'The request is not valid HTTP/1.1: its target has a fragment (#…), which a client keeps to itself (RFC 9112 §3.2.1).' } },
      });
    });

    it('serves an HTTP/1.0 request without Host, which that version allows', async () => {
      const response = await rawExchange('GET /v1/api-keys HTTP/1.0\r\n\r\n');
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('unauthorized');
    });

    it('answers an expectation other than 100-continue with 417 in the API shape, before the key, then closes', async () => {
      // Node answered it itself: a 417 with an empty body (RFC 9110 §10.1.1).
      const response = await rawExchange('POST /v1/api-keys HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
      expect(response).toEqual({
        status: 417,
        contentType: 'application/json; charset=utf-8',
        body: { error: { code: 'expectation_failed', message: "Expect '200-ok' cannot be met; the only expectation this server meets is 100-continue." } },
      });
    });

    it('answers headers over the size limit with 431 in the API shape', async () => {
      const response = await rawExchange(`GET /v1/api-keys HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(response).toEqual({
        status: 431,
        contentType: 'application/json; charset=utf-8',
        body: { error: { code: 'headers_too_large', message: 'The request headers are larger than this server reads (16384 bytes with the request line).' } },
      });
    });

    it.each([
      ['a URL over the size limit', `HEAD /v1/api-keys/${'k'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414],
      ['headers over the size limit', `HEAD /v1/api-keys HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
      ['a control character in a header', 'HEAD /v1/api-keys HTTP/1.1\r\nHost: x\r\nX-Odd: a\u0001b\r\n\r\n', 400],
    ])('answers a HEAD request with %s with the status and headers alone, no content (RFC 9110 §9.3.2)', async (_what, request, status) => {
      const answer = await rawHttpExchange(stack.api.baseUrl, request);
      const asGet = await rawHttpExchange(stack.api.baseUrl, request.replace(/^HEAD /, 'GET '));
      expect(answer.status).toBe(status);
      expect(answer.body).toBeUndefined();
      expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(asGet.body))));
    });

    it.each([
      ['a long query', `/v1/api-keys?name=${'a'.repeat(20_000)}`],
      ['a long path', `/v1/api-keys/${'k'.repeat(20_000)}`],
    ])('answers a URL over the size limit (%s) with 414 in the API shape', async (_what, target) => {
      const response = await rawExchange(`GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(response).toEqual({
        status: 414,
        contentType: 'application/json; charset=utf-8',
        body: { error: { code: 'uri_too_long', message: 'The URL is longer than this server reads (16384 bytes with the headers).' } },
      });
    });
  });

  it('answers a long URL sent with a large body with its 414, never a reset connection, however often it is sent', async () => {
    // The answer comes before the body has been read; closing at once, with the body still arriving, reset the
    // connection, and a client still writing it saw ECONNRESET instead of the 414 (the contract fuzz test caught one).
    const body = JSON.stringify({ description: 'x'.repeat(8_000_000) });
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(`${stack.api.baseUrl}/v1/webhooks/wh_1?${'a'.repeat(20_000)}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body }).then(
          (response) => String(response.status),
          (error: Error & { cause?: { code?: string } }) => `fetch failed: ${error.cause?.code ?? error.message}`,
        ),
      ),
    );
    expect(outcomes).toEqual(Array.from({ length: 10 }, () => '414'));
  });

  describe('query parameters', () => {
    it('refuses a parameter given twice, naming it', async () => {
      const response = await stack.api.get('/v1/api-keys?limit=10&limit=20');
      expectError(response, 422, 'validation_error');
      expect(response.body.error.message).toBe('limit: must be given once, not 2 times');
    });

    it('still reads each parameter given once', async () => {
      const response = await stack.api.get('/v1/api-keys?limit=1');
      expect(response.status).toBe(200);
      expect(response.body.data.length).toBeLessThanOrEqual(1);
    });

    it.each([
      ['GET', '/v1/api-keys?expand=owner'],
      ['GET', `/v1/api-keys/${UNKNOWN_KEY_ID}?expand=owner`],
      ['DELETE', `/v1/api-keys/${UNKNOWN_KEY_ID}?expand=owner`],
      ['POST', `/v1/domains/dom_01ARZ3NDEKTSV4RRFFQ69G5FAV/verify?expand=owner`],
    ])('refuses a parameter %s %s does not read with 422 naming it, with or without a query DTO', async (method, path) => {
      const response = await stack.api.request(method, path);
      expectError(response, 422, 'validation_error');
      expect(response.body.error.message).toBe('expand: is not a known field');
    });

    it.each([
      ['GET', '/v1/api-keys?100=1', '100: is not a known field'],
      ['GET', `/v1/api-keys/${UNKNOWN_KEY_ID}?100=1`, '100: is not a known field'],
      ['GET', '/v1/api-keys?=x', '"": is not a known field'],
      ['GET', `/v1/api-keys/${UNKNOWN_KEY_ID}?=x`, '"": is not a known field'],
      ['GET', '/v1/api-keys?a%0D%0Ab=x', '"a\\r\\nb": is not a known field'],
    ])('names a parameter whose name is digits, empty or holds CR/LF safely: %s %s', async (method, path, message) => {
      const response = await stack.api.request(method, path);
      expectError(response, 422, 'validation_error');
      expect(response.body.error.message).toBe(message);
    });

    it('lets the tracking routes take any parameter a mail client or link scanner adds', async () => {
      const response = await stack.api.get('/t/o/not-a-token.gif?utm_source=newsletter', { key: null });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/gif');
    });

    it.each([['/health/live?probe=1'], ['/openapi.json?v=2'], ['/docs?v=2']])('lets %s, which probes, browsers and generators call, take any parameter', async (path) => {
      expect((await stack.api.get(path, { key: null })).status).toBe(200);
    });
  });

  describe('bodies sent to routes that take none', () => {
    it.each([
      ['DELETE', `/v1/api-keys/${UNKNOWN_KEY_ID}`],
      ['POST', '/v1/domains/dom_01ARZ3NDEKTSV4RRFFQ69G5FAV/verify'],
    ])('answers a text/plain body on %s %s with 415, as on any route', async (method, path) => {
      expectError(await stack.api.request(method, path, { rawBody: 'x', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
    });

    it('answers a text/plain body on a GET with 415 too', async () => {
      const response = await rawExchange(
        `GET /v1/api-keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stack.rootKey}\r\nContent-Type: text/plain\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx`,
      );
      expect(response).toMatchObject({ status: 415, body: { error: { code: 'unsupported_media_type' } } });
    });

    it.each([
      ['a field', { force: true }, 'force: is not a known field'],
      ['an array', [], 'body: this operation takes no body; send none, or {}'],
      ['null', null, 'body: this operation takes no body; send none, or {}'],
    ])('answers a JSON body holding %s with 422, as an unknown field of a body route is', async (_what, body, message) => {
      const response = await stack.api.request('DELETE', `/v1/api-keys/${UNKNOWN_KEY_ID}`, { rawBody: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      expectError(response, 422, 'validation_error');
      expect(response.body.error.message).toBe(message);
    });

    it.each([
      ['an empty object', '{}'],
      ['an empty body', ''],
    ])('accepts %s, which carries nothing', async (_what, rawBody) => {
      const response = await stack.api.request('DELETE', `/v1/api-keys/${UNKNOWN_KEY_ID}`, { rawBody, headers: { 'content-type': 'application/json' } });
      expectError(response, 404, 'not_found');
    });

    // `curl -X POST … -d ''` sends `Content-Type: application/x-www-form-urlencoded` with nothing after it: no body to refuse.
    it.each([['text/plain'], ['application/x-www-form-urlencoded']])('accepts no body under Content-Type %s, which carries nothing either', async (contentType) => {
      const response = await stack.api.request('DELETE', `/v1/api-keys/${UNKNOWN_KEY_ID}`, { rawBody: '', headers: { 'content-type': contentType, 'content-length': '0' } });
      expectError(response, 404, 'not_found');
      const withoutLength = await rawExchange(
        `DELETE /v1/api-keys/${UNKNOWN_KEY_ID} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stack.rootKey}\r\nContent-Type: ${contentType}\r\nConnection: close\r\n\r\n`,
      );
      expect(withoutLength).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    });
  });

  describe('request bodies', () => {
    it('answers malformed JSON with 400 invalid_json', async () => {
      const response = await stack.api.request('POST', '/v1/api-keys', { rawBody: '{"name": "x",', headers: { 'content-type': 'application/json' } });
      expectError(response, 400, 'invalid_json');
      // The parser's own words, so the client can find the mistake.
      expect(response.body.error.message).toBe('The body is not valid JSON: Expected double-quoted property name in JSON at position 13.');
    });

    it('reads an empty JSON body as no body: a route that needs one says so', async () => {
      const response = await stack.api.request('POST', '/v1/api-keys', { rawBody: '', headers: { 'content-type': 'application/json', 'content-length': '0' } });
      expectError(response, 422, 'validation_error');
      expect(response.body.error.message).toBe('body: must be a JSON object');
    });

    it('still refuses a body of whitespace, which is not JSON', async () => {
      expectError(await stack.api.request('POST', '/v1/api-keys', { rawBody: '  ', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    });

    it('refuses a body that sets __proto__, as Fastify does', async () => {
      const response = await stack.api.request('POST', '/v1/api-keys', { rawBody: '{"name":"x","__proto__":{"admin":true}}', headers: { 'content-type': 'application/json' } });
      expectError(response, 400, 'invalid_json');
      expect(response.body.error.message).toMatch(/^The body is refused: it has the key "__proto__"/);
    });

    it('refuses a body with a constructor holding prototype, naming it', async () => {
      const response = await stack.api.request('POST', '/v1/api-keys', { rawBody: '{"name":"x","constructor":{"prototype":{"admin":true}}}', headers: { 'content-type': 'application/json' } });
      expectError(response, 400, 'invalid_json');
      expect(response.body.error.message).toMatch(/^The body is refused: it has the key "constructor" holding "prototype"/);
    });

    it('refuses "constructor" holding no prototype as an unknown field, like any other', async () => {
      const response = await stack.api.request('POST', '/v1/api-keys', { rawBody: '{"name":"x","constructor":"y"}', headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(422);
      expect(response.body.error.message).toBe('constructor: is not a known field');
    });

    it.each([
      ['POST', '/v1/api-keys', '{"name":"x","7":1}', '7: is not a known field'],
      ['POST', '/v1/api-keys', '{"name":"x","":1}', '"": is not a known field'],
      ['DELETE', `/v1/api-keys/${UNKNOWN_KEY_ID}`, '{"":1}', '"": is not a known field'],
      ['POST', '/v1/emails', '{"fro\\r\\nm":1}', '"fro\\r\\nm": is not a known field'],
      ['POST', '/v1/webhooks', JSON.stringify({ url: 'https://example.com/hook', events: ['email.sent', 'x'.repeat(1_000)] }), 'events[1]: must be at most 64 characters'],
    ])('names a body field whose name is digits, empty or holds CR/LF, or an item too long to quote, safely: %s %s', async (method, path, rawBody, message) => {
      const response = await stack.api.request(method, path, { rawBody, headers: { 'content-type': 'application/json' } });
      expectError(response, 422, 'validation_error');
      expect(response.body.error.message).toBe(message);
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])('answers a %s body with 415 unsupported_media_type', async (type) => {
      const response = await stack.api.request('POST', '/v1/api-keys', { rawBody: 'name=x', headers: { 'content-type': type } });
      expectError(response, 415, 'unsupported_media_type');
    });

    it.each(['gzip', 'deflate, gzip', 'br'])('answers a body with Content-Encoding %s with 415, saying so', async (encoding) => {
      const response = await stack.api.request('POST', '/v1/api-keys', { rawBody: '{"name":"zipped"}', headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
      expectError(response, 415, 'unsupported_media_type');
      expect(response.body.error.message).toBe(`Content-Encoding '${encoding}' is not supported; send the body uncompressed.`);
    });

    it('answers a body sent with a transfer coding other than chunked (gzip, chunked) with 415, saying so', async () => {
      // Node's parser takes it and hands on the coded bytes: they were read as the JSON itself (here, plain JSON: a 201).
      const body = '{"name":"coded"}';
      const response = await rawExchange(
        `POST /v1/api-keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stack.rootKey}\r\nContent-Type: application/json\r\n` +
          `Transfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      );
      expect(response.status).toBe(415);
      expect(response.body).toEqual({ error: { code: 'unsupported_media_type', message: "Transfer-Encoding 'gzip, chunked' is not supported; send the body chunked or with a Content-Length." } });
    });

    it('accepts Content-Encoding identity', async () => {
      const response = await stack.api.request('POST', '/v1/api-keys', { rawBody: '{"name":"identity"}', headers: { 'content-type': 'application/json', 'content-encoding': 'Identity' } });
      expect(response.status).toBe(201);
    });

    it('accepts application/json with a charset', async () => {
      const response = await stack.api.request('POST', '/v1/api-keys', { rawBody: '{"name":"charset"}', headers: { 'content-type': 'application/json; charset=utf-8' } });
      expect(response.status).toBe(201);
    });

    it('refuses a body that is not UTF-8 with 400, rather than storing U+FFFD where each byte was', async () => {
      // "café" in Latin-1: the é is the single byte 0xE9, which is no UTF-8.
      const latin1 = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
      const response = await fetch(`${stack.api.baseUrl}/v1/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.rootKey}`, 'content-type': 'application/json' },
        body: latin1,
      });
      expectError({ status: response.status, body: await response.json() }, 400, 'invalid_json');
    });

    it('reads UTF-8, with or without a byte order mark', async () => {
      for (const prefix of ['', '\ufeff']) {
        const response = await stack.api.request('POST', '/v1/api-keys', { rawBody: `${prefix}{"name":"café ✓"}`, headers: { 'content-type': 'application/json' } });
        expect({ status: response.status, name: response.body.name }).toEqual({ status: 201, name: 'café ✓' });
      }
    });

    it.each(['latin1', 'ISO-8859-1', 'utf-16', '"windows-1252"'])('answers a body declared as charset=%s with 415, naming it', async (charset) => {
      const response = await stack.api.request('POST', '/v1/api-keys', { rawBody: '{"name":"x"}', headers: { 'content-type': `application/json; charset=${charset}` } });
      expectError(response, 415, 'unsupported_media_type');
      expect(response.body.error.message).toContain(`got '${charset.replace(/"/g, '').toLowerCase()}'`);
    });

    it.each(['utf-8', 'UTF-8', '"utf-8"', 'utf8'])('accepts charset=%s', async (charset) => {
      const response = await stack.api.request('POST', '/v1/api-keys', { rawBody: '{"name":"utf8"}', headers: { 'content-type': `application/json; charset=${charset}` } });
      expect(response.status).toBe(201);
    });

    it('refuses half a surrogate pair (an emoji cut in two) with 422 naming the field, rather than storing U+FFFD', async () => {
      for (const [body, field] of [
        [{ name: 'cut \ud83d' }, 'name'],
        [{ name: 'ok', domainRestrictions: ['\ude00.example.com'] }, 'domainRestrictions[0]'],
      ] as const) {
        const response = await stack.api.post('/v1/api-keys', body);
        expectError(response, 422, 'validation_error');
        expect(response.body.error.message).toBe(`${field}: must not contain an unpaired UTF-16 surrogate (\\uD800-\\uDFFF without its other half), which is no character`);
      }
      const whole = await stack.api.post('/v1/api-keys', { name: 'whole 😀' });
      expect({ status: whole.status, name: whole.body.name }).toEqual({ status: 201, name: 'whole 😀' });
    });

    it('names a field or quotes a body holding half a surrogate pair with it escaped, so the error itself is text a strict JSON decoder takes', async () => {
      const key = await stack.api.post('/v1/api-keys', { name: 'ok', ['cut \ud83d']: 1 });
      expectError(key, 422, 'validation_error');
      expect(key.body.error.message).toBe('"cut \\ud83d": must not contain an unpaired UTF-16 surrogate (\\uD800-\\uDFFF without its other half), which is no character');
      const body = await stack.api.request('POST', '/v1/api-keys', { rawBody: '😀', headers: { 'content-type': 'application/json' } });
      expectError(body, 400, 'invalid_json');
      expect(body.body.error.message).toBe('The body is not valid JSON: Unexpected token \'\\ud83d\', "😀" is not valid JSON.');
    });

    it('answers a body over BODY_LIMIT_BYTES with 413 payload_too_large', async () => {
      const response = await stack.api.post('/v1/api-keys', { name: 'big', padding: 'x'.repeat(4096) });
      expectError(response, 413, 'payload_too_large');
    });
  });

  it('answers with 503 service_unavailable while a service is not running', async () => {
    // Verified and cached while the keys service runs, so authentication needs no NATS round trip.
    expect((await stack.api.get('/v1/api-keys')).status).toBe(200);
    await stack.stopApp('keys');
    try {
      const started = Date.now();
      const response = await stack.api.get('/v1/api-keys');
      expectError(response, 503, 'service_unavailable');
      // NATS says at once that nobody listens: the answer does not wait for the timeout, nor claim it did.
      expect(response.body.error.message).toMatch(/keys service is not running/);
      expect(Date.now() - started).toBeLessThan(RPC_TIMEOUT_MS);
    } finally {
      await stack.startApp('keys');
    }
    expect((await stack.api.get('/v1/api-keys')).status).toBe(200);
  });

  it('answers with 503 service_unavailable when a replica takes the request but does not answer within RPC_TIMEOUT_MS', async () => {
    expect((await stack.api.get('/v1/api-keys')).status).toBe(200);
    await stack.stopApp('keys');
    // A hung replica: subscribed in the service's queue group, never replying.
    const hung = await connect({ servers: stack.nats.url });
    hung.subscribe(KeysSubjects.list, { queue: 'keys' });
    await hung.flush();
    try {
      const started = Date.now();
      const response = await stack.api.get('/v1/api-keys');
      expectError(response, 503, 'service_unavailable');
      expect(response.body.error.message).toMatch(/did not answer in time/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(RPC_TIMEOUT_MS - 50);
    } finally {
      await hung.close();
      await stack.startApp('keys');
    }
    expect((await stack.api.get('/v1/api-keys')).status).toBe(200);
  });

  it('answers with 503 service_unavailable while the database refuses connections, and recovers when it is back', async () => {
    expect((await stack.api.get('/v1/api-keys')).status).toBe(200);
    const outage = await startDatabaseOutage(stack.databaseUrl);
    try {
      const response = await stack.api.get('/v1/api-keys');
      expectError(response, 503, 'service_unavailable');
      expect(response.body.error.message).toMatch(/database is unavailable/);
    } finally {
      await outage.end();
    }
    await eventually(async () => (await stack.api.get('/v1/api-keys')).status === 200);
  });

  it('answers an unexpected failure with 500 internal_error and no stack or internals', async () => {
    expect((await stack.api.get('/v1/api-keys')).status).toBe(200);
    const db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    try {
      await db.query('ALTER TABLE keys.api_keys RENAME TO api_keys_hidden');
      const response = await stack.api.get('/v1/api-keys');
      expectError(response, 500, 'internal_error');
      expect(response.body.error.message).toMatch(/error id [0-9a-f-]{36}/);
      expect(JSON.stringify(response.body)).not.toMatch(/api_keys|relation|QueryFailed|at \w+ \(|\.js:\d+/);
    } finally {
      await db.query('ALTER TABLE keys.api_keys_hidden RENAME TO api_keys');
      await db.end();
    }
    expect((await stack.api.get('/v1/api-keys')).status).toBe(200);
  });
});
