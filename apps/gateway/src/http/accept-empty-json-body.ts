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
  // As bytes: a string would already have had bytes that are not UTF-8 replaced, silently (parseJsonBody refuses them).
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
