import { DomainError, ErrorCode } from '@mailroom/errors';

interface ReplyLike {
  header(name: string, value: string): unknown;
}

/**
 * A request target is a path and a query, never a fragment (RFC 9112 §3.2.1:
 * the `#…` part of a URL stays with the client). Node's parser lets `#`
 * through and the router reads what follows it as the query, so
 * `GET /v1/emails#x` was refused for an unknown field `x`, a message about
 * something the client never meant to send. Answered as the malformed HTTP it
 * is, and the connection closed, as for any request that is not valid HTTP.
 */
export function assertNoFragment(request: { url: string }, reply: ReplyLike): void {
  if (!request.url.includes('#')) return;
  reply.header('connection', 'close');
  throw new DomainError(ErrorCode.InvalidJson, 'The request is not valid HTTP/1.1: its target has a fragment (#…), which a client keeps to itself (RFC 9112 §3.2.1).');
}
