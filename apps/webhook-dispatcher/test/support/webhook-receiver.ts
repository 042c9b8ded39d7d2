import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingMessage['headers'];
  rawBody: string;
  receivedAt: number;
}

/**
 * How the receiver answers a request: a status (and headers), `hold` to keep it open until release(), or `raw`
 * bytes written on the socket as they are (a receiver that is no well-behaved HTTP server), which stays open.
 */
export type Reply = { status: number; headers?: Record<string, string>; body?: string } | { raw: string } | 'hold';

/**
 * A real HTTP server on loopback that records every request with its raw body,
 * and answers as the test says (by default 200).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private server?: Server;
  private held: ServerResponse[] = [];
  reply: (request: ReceivedRequest, index: number) => Reply = () => ({ status: 200 });

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received = { headers: request.headers, rawBody: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
        const index = this.requests.push(received) - 1;
        const reply = this.reply(received, index);
        if (reply === 'hold') {
          this.held.push(response);
          return;
        }
        if ('raw' in reply) {
          // Never answered through `response`; stop() closes the connection with the others.
          request.socket.write(reply.raw);
          return;
        }
        response.writeHead(reply.status, reply.headers);
        response.end(reply.body ?? '');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** Never closes an idle keep-alive connection itself (and sends no `Keep-Alive: timeout` hint), as some servers do not. */
  keepIdleConnections(): this {
    this.server!.keepAliveTimeout = 0;
    return this;
  }

  /** TCP connections open to the receiver right now. */
  openConnections(): Promise<number> {
    return new Promise((resolve, reject) => this.server!.getConnections((error, count) => (error ? reject(error) : resolve(count))));
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  /** The URL on 127.0.0.1, or on another host name that resolves to it. */
  url(path = '/hooks', host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  bodies<T = any>(): T[] {
    return this.requests.map((request) => JSON.parse(request.rawBody) as T);
  }

  eventIds(): string[] {
    return this.requests.map((request) => String(request.headers['service-event-id']));
  }

  /** Answers every held request with 200. */
  release(): void {
    for (const response of this.held.splice(0)) if (!response.destroyed) response.writeHead(200).end();
  }

  async stop(): Promise<void> {
    for (const response of this.held.splice(0)) response.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
