import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Connections whose request was answered while its body was still arriving (a 401 comes before the body is read). */
const answeredBeforeBody = new WeakSet<Socket>();

/**
 * Notes a request answered before its body had all arrived, until the rest of
 * it has (Node reads it on and drops it), so that when it never does the
 * request's timeout closes the connection without a second answer to it.
 */
export function trackAnswersBeforeBody(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', async (request) => {
    const { raw } = request;
    if (raw.complete) return;
    answeredBeforeBody.add(raw.socket);
    raw.once('end', () => answeredBeforeBody.delete(raw.socket));
  });
}

export const wasAnsweredBeforeBody = (socket: Socket): boolean => answeredBeforeBody.has(socket);
