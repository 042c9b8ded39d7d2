import { IncomingHttpHeaders, maxHeaderSize, request } from 'node:http';
import { Gauge } from 'prom-client';
import { rawHttpExchange } from '@mailroom/testing';
import { metricsRegistry } from './metrics';
import { OpsServer, startOpsServer } from './ops-server';
import { SECURITY_HEADERS } from './security-headers';

function ask(port: number, method: string, path: string): Promise<{ status: number; allow?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, allow: response.headers.allow, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function headersOf(port: number, path: string): Promise<IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.headers));
    })
      .on('error', reject)
      .end();
  });
}

describe('the operations port', () => {
  let server: OpsServer;
  let checks: Record<string, 'ok' | 'down'> = { nats: 'ok' };

  beforeAll(async () => {
    server = await startOpsServer('127.0.0.1', 0, async () => checks);
  });
  afterAll(() => server.close());

  it('answers HEAD as it answers GET, without a body, so a monitor that probes with HEAD sees the same status', async () => {
    checks = { nats: 'ok', database: 'ok' };
    expect(await ask(server.port, 'HEAD', '/health/live')).toEqual({ status: 200, body: '' });
    expect(await ask(server.port, 'HEAD', '/health/ready')).toEqual({ status: 200, body: '' });
    expect(await ask(server.port, 'HEAD', '/metrics')).toEqual({ status: 200, body: '' });
    checks = { nats: 'ok', database: 'down' };
    expect(await ask(server.port, 'HEAD', '/health/ready')).toEqual({ status: 503, body: '' });
    expect(JSON.parse((await ask(server.port, 'GET', '/health/ready')).body)).toEqual({ status: 'unavailable', checks });
  });

  it('answers a scrape whose collection fails with 500 in the error shape, saying why, and serves the next one', async () => {
    const name = 'ops_server_spec_failing';
    new Gauge({
      name,
      help: 'a collector that throws',
      registers: [metricsRegistry],
      collect() {
        throw new Error('the collector broke');
      },
    });
    try {
      const answer = await ask(server.port, 'GET', '/metrics');
      expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({
        status: 500,
        body: { error: { code: 'internal_error', message: 'The metrics could not be collected: the collector broke' } },
      });
    } finally {
      metricsRegistry.removeSingleMetric(name);
    }
    expect((await ask(server.port, 'GET', '/metrics')).status).toBe(200);
  });

  it('answers another method 405 method_not_allowed, naming GET and HEAD in Allow, as the API answers one', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const answer = await ask(server.port, method, '/health/ready');
      expect({ method, status: answer.status, allow: answer.allow, body: JSON.parse(answer.body) }).toEqual({
        method,
        status: 405,
        allow: 'GET, HEAD',
        body: { error: { code: 'method_not_allowed', message: expect.stringMatching(/GET/) } },
      });
    }
  });

  it.each(['/health/live', '/health/ready', '/metrics', '/nowhere'])('answers %s with the API port\'s security headers (never sniffed as another type, cached or framed)', async (path) => {
    expect(await headersOf(server.port, path)).toMatchObject(Object.fromEntries(SECURITY_HEADERS));
  });

  it.each([
    ['a control character in a header', 'GET /health/live HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n', 400, 'invalid_json'],
    ['a Content-Length that is no number', 'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n', 400, 'invalid_json'],
    ['headers over the size limit', `GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(maxHeaderSize)}\r\n\r\n`, 431, 'headers_too_large'],
  ])('answers a request Node cannot parse (%s) in the error shape, not with a bare status line, and closes the connection', async (_case, raw, status, code) => {
    const answer = await rawHttpExchange(`http://127.0.0.1:${server.port}`, raw);
    expect(answer).toMatchObject({ status, headers: { connection: 'close', 'x-content-type-options': 'nosniff' }, body: { error: { code, message: expect.any(String) } } });
  });

  it.each([
    ['no Host header', 'GET /health/live HTTP/1.1\r\n\r\n', /no Host header/],
    ['two Host headers', 'GET /health/live HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', /2 Host headers/],
  ])('answers an HTTP/1.1 request with %s 400 in the error shape, not with Node\'s empty 400, and closes the connection', async (_case, raw, message) => {
    const answer = await rawHttpExchange(`http://127.0.0.1:${server.port}`, raw);
    expect(answer).toMatchObject({ status: 400, headers: { connection: 'close', 'x-content-type-options': 'nosniff' }, body: { error: { code: 'invalid_json', message: expect.stringMatching(message) } } });
  });

  it('answers an HTTP/1.0 request without Host, which HTTP/1.0 allows', async () => {
    const answer = await rawHttpExchange(`http://127.0.0.1:${server.port}`, 'GET /health/live HTTP/1.0\r\n\r\n');
    expect(answer).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('answers CONNECT 405 with Allow, in the error shape, instead of closing the connection without a word', async () => {
    const answer = await rawHttpExchange(`http://127.0.0.1:${server.port}`, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(answer).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' }, body: { error: { code: 'method_not_allowed', message: expect.stringMatching(/GET and HEAD/) } } });
  });
});
