import '../register-paths';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { parentPort } from 'node:worker_threads';
import { WEBHOOK_EVENT_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, verifyWebhookSignature } from '@mailroom/contracts';

/**
 * The benchmark's webhook endpoint, in its own thread so that the publisher's
 * work in the main thread never delays its answers: a bare node:http server
 * on 127.0.0.1 that verifies every signature against the raw body, as a real
 * receiver must, and records when each event id first arrived. It answers
 * 200 either way, so a bad signature is counted rather than retried.
 */
const firstArrival = new Map<string, number>();
let signatureFailures = 0;
let duplicates = 0;
let secret = '';

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const arrivedAt = Date.now();
    if (!verifyWebhookSignature(Buffer.concat(chunks), request.headers[WEBHOOK_SIGNATURE_HEADER], secret)) signatureFailures += 1;
    const eventId = String(request.headers[WEBHOOK_EVENT_ID_HEADER]);
    if (firstArrival.has(eventId)) duplicates += 1;
    else firstArrival.set(eventId, arrivedAt);
    response.writeHead(200).end();
  });
});
// Many requests go through one keep-alive connection; Node's defaults would close it.
server.keepAliveTimeout = 30_000;
server.maxRequestsPerSocket = 0;

parentPort!.on('message', (message: { type: 'secret'; secret: string } | { type: 'stats' } | { type: 'arrivals' } | { type: 'stop' }) => {
  if (message.type === 'secret') secret = message.secret;
  else if (message.type === 'stats') parentPort!.postMessage({ type: 'stats', distinct: firstArrival.size, duplicates, signatureFailures });
  else if (message.type === 'arrivals') parentPort!.postMessage({ type: 'arrivals', arrivals: [...firstArrival] });
  else {
    server.closeAllConnections();
    server.close(() => parentPort!.close());
  }
});

server.listen(0, '127.0.0.1', () => parentPort!.postMessage({ type: 'listening', port: (server.address() as AddressInfo).port }));
