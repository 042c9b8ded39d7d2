import { createServer, Server } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { answerOnSocketAndClose } from './answer-on-socket';
import { hostHeaderProblem } from './host-header-problem';
import { answerMalformedRequest } from './malformed-request';
import { metricsRegistry } from './metrics';
import { SECURITY_HEADERS } from './security-headers';

const ONLY_GET_AND_HEAD = 'The operations port answers GET and HEAD only.';

/** 'pending': not there yet by design (an app waiting for its migrations), as against 'down'. */
export type CheckState = 'ok' | 'down' | 'pending';
export type ReadinessCheck = () => Promise<Record<string, CheckState>>;

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The operations port of every app (HEALTH_PORT): GET /health/live answers
 * while the process serves; GET /health/ready only while its dependencies
 * (Postgres, NATS) answer; GET /metrics serves Prometheus metrics. Kept off
 * the public API port so it is never exposed through the ingress.
 */
export async function startOpsServer(host: string, port: number, ready: ReadinessCheck): Promise<OpsServer> {
  // Node's own answer to an HTTP/1.1 request without Host is an empty 400; the handler answers it in the error shape.
  const server: Server = createServer({ requireHostHeader: false }, (request, response) => {
    const send = (status: number, body: string, type = 'application/json', headers: Record<string, string> = {}) => {
      // The API port's security headers: a browser pointed here (a port-forward while debugging) must not run an
      // answer as something else, nor keep the metrics (tenant-free, but an inventory of the system).
      // Content-Length rather than chunks: a probe that reads raw bytes (a TCP health check's expect string) reads the body as sent.
      response.writeHead(status, Object.assign(Object.fromEntries(SECURITY_HEADERS), { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) }, headers));
      // For HEAD, Node sends the headers and leaves the body out.
      response.end(body);
    };
    /** An error answer in the API's one error shape (DomainError's), with the status its code maps to. */
    const sendError = (error: DomainError, headers: Record<string, string> = {}) => send(error.httpStatus, JSON.stringify(error.toBody()), 'application/json', headers);
    const hostProblem = hostHeaderProblem(request);
    if (hostProblem) return sendError(hostProblem, { connection: 'close' });
    const path = (request.url ?? '/').split('?')[0];
    // HEAD as GET (RFC 9110): monitors and load balancers that probe with HEAD see the same status.
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return sendError(new DomainError(ErrorCode.MethodNotAllowed, ONLY_GET_AND_HEAD), { allow: 'GET, HEAD' });
    }
    if (path === '/health/live') return send(200, JSON.stringify({ status: 'ok' }));
    if (path === '/health/ready') {
      ready()
        .then((checks) => {
          const ok = Object.values(checks).every((state) => state === 'ok');
          send(ok ? 200 : 503, JSON.stringify({ status: ok ? 'ok' : 'unavailable', checks }));
        })
        .catch(() => send(503, JSON.stringify({ status: 'unavailable' })));
      return;
    }
    if (path === '/metrics') {
      metricsRegistry.metrics().then(
        (text) => send(200, text, metricsRegistry.contentType),
        // A collector that throws: said in the error shape every other answer here has, not an empty 500.
        (error: Error) => sendError(new DomainError(ErrorCode.InternalError, `The metrics could not be collected: ${error.message}`)),
      );
      return;
    }
    sendError(new DomainError(ErrorCode.NotFound, 'No route matches this path.'));
  });
  // What Node's parser cannot read got its bare 400 or 431 (no body), and CONNECT a closed connection without a
  // word: answered in the error shape of the rest of this port, as the API port does.
  server.on('clientError', (error, socket) => answerMalformedRequest(error, socket as Socket));
  server.on('connect', (_request, socket) => answerOnSocketAndClose(socket, new DomainError(ErrorCode.MethodNotAllowed, ONLY_GET_AND_HEAD), { headerLines: 'Allow: GET, HEAD\r\n' }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => closeServer(server),
  };
}

/** How long a probe or scrape already being answered may take to finish when the ops port closes. */
const CLOSE_GRACE_MS = 1000;

/**
 * server.close() alone waits for every open connection, and probes and
 * scrapers keep theirs alive between requests, so shutdown would hang until
 * they time out. Idle connections are dropped at once; a request being
 * answered gets a short grace, then its connection is dropped too.
 */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
