import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { metricsRegistry } from './metrics';

export type ReadinessCheck = () => Promise<Record<string, 'ok' | 'down'>>;

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
  const server: Server = createServer((request, response) => {
    const send = (status: number, body: string, type = 'application/json') => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET') return send(405, JSON.stringify({ error: { code: 'not_found', message: 'GET only' } }));
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
        () => send(500, ''),
      );
      return;
    }
    send(404, JSON.stringify({ error: { code: 'not_found', message: 'No route matches this path.' } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
