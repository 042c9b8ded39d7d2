import { connect, Socket } from 'node:net';
import { eventually, Stack, startStack } from '@mailroom/testing';
import { documentSchemaCompiler, Json } from './support/openapi-schemas';

/** A raw HTTP/1.1 connection to the gateway: what a test writes goes out as is, and what comes back is read as it arrives. */
interface RawConnection {
  write(text: string): void;
  /** Resolves once what came back satisfies `predicate`, or the server closed the connection. */
  until(predicate: (received: string) => boolean): Promise<string>;
  closed(): boolean;
  socket: Socket;
}

function rawConnection(baseUrl: string): Promise<RawConnection> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    let closed = false;
    const waiters = new Set<() => void>();
    const wake = () => waiters.forEach((waiter) => waiter());
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => ((received += chunk), wake()));
    socket.on('close', () => ((closed = true), wake()));
    socket.on('error', () => undefined);
    socket.once('connect', () =>
      resolve({
        socket,
        write: (text) => socket.write(text),
        closed: () => closed,
        until: (predicate) =>
          new Promise((done, fail) => {
            const timer = setTimeout(() => (waiters.delete(check), fail(new Error(`no answer; received so far: ${JSON.stringify(received)}`))), 10000);
            const check = () => {
              if (!predicate(received) && !closed) return;
              clearTimeout(timer);
              waiters.delete(check);
              done(received);
            };
            waiters.add(check);
            check();
          }),
      }),
    );
    socket.once('error', reject);
  });
}

/** The parts of one HTTP/1.1 answer with a Content-Length body. */
function parseAnswer(text: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head, body] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

const answerIsComplete = (text: string) => {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0 || text.startsWith('HTTP/1.1 100')) return false;
  const length = /content-length: (\d+)/i.exec(text.slice(0, end));
  return !!length && text.length >= end + 4 + Number(length[1]);
};

/**
 * While the gateway shuts down (SIGTERM runs app.close()), a request that
 * arrives on a connection still open is turned away with 503: it must be the
 * API's error shape, as every other answer is, so a client reading
 * error.code sees service_unavailable and retries.
 */
describe('requests that reach the gateway while it shuts down', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  it('answers 503 service_unavailable in the error shape, with Connection: close, as the document says, and still answers the request in flight', async () => {
    const doc: Json = (await stack.api.get('/openapi.json', { key: null })).body;
    const compile = documentSchemaCompiler(doc);
    // In flight: its headers are read and admitted (100 Continue), its body not yet sent, so close() waits for it.
    const body = JSON.stringify({ name: 'in flight', permissions: ['emails:read'] });
    const inFlight = await rawConnection(stack.baseUrl);
    inFlight.write(
      `POST /v1/api-keys HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${stack.rootKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
    );
    await inFlight.until((text) => text.startsWith('HTTP/1.1 100'));
    // Clients half-way through their requests' headers, to an API route and to a public one: the connections
    // are busy, so closing does not drop them.
    const late = new Map<string, RawConnection>();
    for (const [key, path] of [
      ['GET /v1/api-keys', '/v1/api-keys'],
      ['GET /health', '/health'],
    ]) {
      const connection = await rawConnection(stack.baseUrl);
      connection.write(`GET ${path} HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${stack.rootKey}\r\n`);
      late.set(key, connection);
    }

    const baseUrl = stack.baseUrl;
    const stopping = stack.stopApp('gateway');
    try {
      // The listener is closed once the gateway is closing: new connections are refused.
      await eventually(async () => (await fetch(`${baseUrl}/health`).then(() => 'open', () => 'refused')) === 'refused');
      for (const [key, connection] of late) {
        connection.write('\r\n');
        const answer = parseAnswer(await connection.until(answerIsComplete));
        expect({ key, ...answer }).toEqual({
          key,
          status: 503,
          headers: expect.objectContaining({ connection: 'close', 'content-type': expect.stringMatching(/^application\/json/) }),
          body: { error: { code: 'service_unavailable', message: expect.stringMatching(/shutting down/) } },
        });
        const [method, path] = key.split(' ');
        const documented = doc.paths[path][method.toLowerCase()].responses['503'];
        expect({ key, documented: Boolean(documented) }).toEqual({ key, documented: true });
        const validate = compile(documented.content['application/json'].schema);
        expect({ key, valid: validate(answer.body), errors: validate.errors ?? null }).toEqual({ key, valid: true, errors: null });
      }

      inFlight.write(body);
      const created = parseAnswer((await inFlight.until((text) => answerIsComplete(text.slice(text.indexOf('\r\n\r\n') + 4)))).split(/^HTTP\/1\.1 100 Continue\r\n\r\n/)[1]);
      expect(created).toEqual(expect.objectContaining({ status: 201, body: expect.objectContaining({ name: 'in flight' }) }));
    } finally {
      inFlight.socket.destroy();
      late.forEach((connection) => connection.socket.destroy());
      await stopping;
      await stack.startApp('gateway');
    }
  });
});
