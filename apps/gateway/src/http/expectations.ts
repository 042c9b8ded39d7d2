import type { FastifyInstance } from 'fastify';
import { DomainError, ErrorCode, quotedForMessage } from '@mailroom/errors';

/** Node's own test for the expectation it hands to `checkContinue` (lib/_http_server.js). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/** Whether the request waits for "100 Continue" before it sends its body: by Node's test, which decides that it does. */
export const asksToContinue = (headers: RequestLike['headers']): boolean => headers.expect !== undefined && CONTINUE.test(String(headers.expect));

interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
}

interface ReplyLike {
  header(name: string, value: string): unknown;
}

/**
 * Node answers a request whose `Expect` is not 100-continue with a 417 of its
 * own, with an empty body; passed on instead, it is refused by
 * assertExpectationMet in the API's error shape.
 */
export function routeUnmetExpectations(fastify: FastifyInstance): void {
  fastify.server.on('checkExpectation', (request, response) => fastify.server.emit('request', request, response));
}

/**
 * 100-continue is the only expectation HTTP defines, and this server meets it
 * (continueAfterAdmission); any other cannot be met, so the request is
 * refused with 417 (RFC 9110 §10.1.1) before its key or body is read. The
 * connection is then closed: the client did not wait, so its body may follow.
 */
export function assertExpectationMet(request: RequestLike, reply: ReplyLike): void {
  const expect = request.headers.expect;
  if (expect === undefined || asksToContinue(request.headers)) return;
  reply.header('connection', 'close');
  throw new DomainError(ErrorCode.ExpectationFailed, `Expect ${quotedForMessage(String(expect))} cannot be met; the only expectation this server meets is 100-continue.`);
}
