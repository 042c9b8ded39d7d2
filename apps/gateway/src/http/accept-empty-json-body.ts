import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies as Fastify parses them (with its prototype-poisoning guards),
 * except that an empty body counts as no body. HTTP clients and SDKs that set
 * `Content-Type: application/json` on every request send it on bodiless
 * POSTs too (cancel, verify, rotate a secret, retry, test), and Fastify's own
 * parser refused those with 400. A route that needs a body still says which
 * fields are missing (422).
 */
export function acceptEmptyJsonBody(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // parseAs: 'string' hands the body over as a string.
    if (body === '') return done(null, undefined);
    parseJson(request, body as string, done);
  });
}
