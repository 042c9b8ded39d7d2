import { connect, Socket } from 'node:net';
import { eventually, startStack, Stack } from '@mailroom/testing';

const REQUEST_TIMEOUT_MS = 2000;

/** A socket to the gateway and everything it has received, and whether the server has closed it. */
interface Connection {
  socket: Socket;
  received: () => string;
  closed: () => boolean;
}

/**
 * A request must arrive whole within REQUEST_TIMEOUT_MS. Fastify turns Node's
 * own limit off, so a client that announced a body and sent only part of it
 * (or trickled it a byte at a time) held its connection, and the body buffered
 * so far, for ever; one without a key too, after its 401.
 */
describe('requests that never finish arriving', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'gateway'], env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });
  });
  afterAll(() => stack?.stop());

  async function open(): Promise<Connection> {
    const { hostname, port } = new URL(stack.api.baseUrl);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const chunks: Buffer[] = [];
    let closed = false;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => (closed = true));
    return { socket, received: () => Buffer.concat(chunks).toString('utf8'), closed: () => closed };
  }

  const partialPost = (key: string | null) =>
    'POST /v1/domains HTTP/1.1\r\nHost: x\r\n' + (key ? `Authorization: Bearer ${key}\r\n` : '') + 'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":';

  // 408 Request Timeout (RFC 9110 §15.5.9): the request was fine as far as it came; sent again whole, it may succeed.
  it('answers a body that stops arriving 408 request_timeout in the API shape and closes the connection', async () => {
    const connection = await open();
    connection.socket.write(partialPost(stack.rootKey));
    await eventually(() => connection.closed(), 15_000);
    const [head, body] = connection.received().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(JSON.parse(body)).toEqual({ error: { code: 'request_timeout', message: 'The request did not arrive completely in time; send it again.' } });
  });

  it('closes the connection of a caller without a key that stops sending its body, after its 401 and nothing else', async () => {
    const connection = await open();
    connection.socket.write(partialPost(null));
    await eventually(() => connection.closed(), 15_000);
    // Anywhere: a second answer would follow the first one's body on the same line.
    const answers = connection.received().match(/HTTP\/1\.1 \d{3}/g);
    expect(answers).toEqual(['HTTP/1.1 401']);
  });

  it('leaves an idle keep-alive connection between whole requests open for the next one', async () => {
    const connection = await open();
    const request = 'GET /v1/api-keys?limit=1 HTTP/1.1\r\nHost: x\r\n\r\n';
    connection.socket.write(request);
    await eventually(() => /^HTTP\/1\.1 401 /.test(connection.received()));
    // Idle, not slow: the wait is what is tested, twice the time a request has to arrive.
    await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS * 2));
    connection.socket.write(request);
    await eventually(() => connection.received().match(/HTTP\/1\.1 401 /g)?.length === 2);
    expect(connection.closed()).toBe(false);
    connection.socket.destroy();
  });
});
