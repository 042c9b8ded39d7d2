import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from './parse-json-body';

/**
 * JSON bodies parsed with Fastify's prototype-poisoning guards, except that an
 * empty body counts as no body. HTTP clients and SDKs that set
 * `Content-Type: application/json` on every request send it on bodiless
 * POSTs too (cancel, verify, rotate a secret, retry, test), and Fastify's own
 * parser refused those with 400. A route that needs a body still says which
 * fields are missing (422).
 */
export function acceptEmptyJsonBody(fastify: FastifyInstance): void {
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    // parseAs: 'string' hands the body over as a string.
    if (body === '') return done(null, undefined);
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
