import type { FastifyInstance } from 'fastify';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { parseJsonBody } from './parse-json-body';

/**
 * JSON bodies parsed with Fastify's prototype-poisoning guards, except that an
 * empty body counts as no body. HTTP clients and SDKs that set
 * `Content-Type: application/json` on every request send it on bodiless
 * POSTs too (cancel, verify, rotate a secret, retry, test), and Fastify's own
 * parser refused those with 400. A route that needs a body still says which
 * fields are missing (422).
 *
 * Any other media type reaches a parser only without a body: assertJsonBody
 * has already answered 415 to a request that carries one. Fastify still runs
 * a parser for every Content-Type it is given, so `curl -X POST … -d ''`
 * (form-urlencoded, nothing after it) was refused 415 by Fastify itself, and
 * an empty text/plain body became '' and a 422 saying "send none". Such a
 * request has no body, so it is read as none; were a body ever to get this
 * far, it is refused rather than dropped.
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
  fastify.removeContentTypeParser('text/plain');
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    done(new DomainError(ErrorCode.UnsupportedMediaType, 'Content-Type must be application/json.'), undefined);
  });
}
