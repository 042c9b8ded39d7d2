import type { Logger } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { DomainError, ErrorCode, sendHttpError } from '@mailroom/errors';

/**
 * Fastify's option that would answer requests arriving while it closes with
 * its own 503 body (`{"error":"Service Unavailable","statusCode":503}`), not
 * the API's error shape; off, so closeKeepAliveOnShutdown answers them.
 */
export const FASTIFY_CLOSING_OPTIONS = { return503OnClosing: false } as const;

/**
 * Lets Fastify's close() end instead of hanging on keep-alive connections,
 * and turns away what arrives meanwhile. close() drops connections idle at
 * that moment and finishes the requests in flight; but the connection of such
 * a request stays open, idle, after its answer, and server.close() then waits
 * for the client to hang up (Fastify's keep-alive timeout is 72 s). So while
 * closing, every answer carries `Connection: close`, connections that went
 * idle anyway are dropped, and a request that arrives on a connection still
 * open is answered 503 service_unavailable (in the error shape, so clients
 * retry it elsewhere) before anything reads its key or body.
 *
 * Call it before any other onRequest hook, so the refusal comes first.
 */
export function closeKeepAliveOnShutdown(fastify: FastifyInstance, logger: Logger): void {
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });
  fastify.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    sendHttpError(reply, new DomainError(ErrorCode.ServiceUnavailable, 'The gateway is shutting down; send the request again.'), logger);
    return reply;
  });
  fastify.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  fastify.addHook('onResponse', async () => {
    if (closing) fastify.server.closeIdleConnections();
  });
}
