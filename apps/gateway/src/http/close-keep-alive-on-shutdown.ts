import type { FastifyInstance } from 'fastify';

/**
 * Lets Fastify's close() end instead of hanging on keep-alive connections.
 * close() drops connections idle at that moment and finishes the requests in
 * flight; but the connection of such a request stays open, idle, after its
 * answer, and server.close() then waits for the client to hang up (Fastify's
 * keep-alive timeout is 72 s). So while closing, every answer carries
 * `Connection: close`, and connections that went idle anyway are dropped.
 */
export function closeKeepAliveOnShutdown(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });
  fastify.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  fastify.addHook('onResponse', async () => {
    if (closing) fastify.server.closeIdleConnections();
  });
}
