import type { FastifyInstance } from 'fastify';
import { asksToContinue } from './expectations';

/**
 * `Expect: 100-continue` asks whether to send the body at all (RFC 9110
 * §10.1.1): curl does it for large bodies, and so do .NET and some SDKs. Node
 * said "100 Continue" to every such request the moment its headers arrived,
 * so a caller without a valid key was invited to upload its whole body (up to
 * BODY_LIMIT_BYTES) only to be told 401 after. Handling `checkContinue` stops
 * that; the request then runs as any other, and the invitation is sent once
 * the onRequest checks (route, key, address, permission, rate limit, media
 * type) have passed, just before the body is read, unless the body announced
 * is over the limit, which Fastify then answers 413 without reading it. A
 * request answered without it gets `Connection: close` from Node, since the
 * client may still send a body nobody reads.
 */
export function continueAfterAdmission(fastify: FastifyInstance, bodyLimit: number): void {
  fastify.server.on('checkContinue', (request, response) => fastify.server.emit('request', request, response));
  fastify.addHook('preParsing', async (request, reply, payload) => {
    // Node's own test, not an exact match: a request it holds for the invitation ("100-continue, x-trace") waited for ever.
    if (asksToContinue(request.headers) && !(Number(request.headers['content-length']) > bodyLimit)) reply.raw.writeContinue();
    return payload;
  });
}
