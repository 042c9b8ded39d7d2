import { DomainError, ErrorCode } from '@mailroom/errors';

interface RequestLike {
  raw: { httpVersion: string; headersDistinct: Record<string, string[] | undefined> };
}

interface ReplyLike {
  header(name: string, value: string): unknown;
}

/**
 * An HTTP/1.1 request names its server in exactly one Host header, and a
 * server must answer 400 to one with none or several (RFC 9112 §3.2). Node
 * answered a missing Host itself, with an empty body, and kept the first of
 * several, while the tracking routes honour a token only under the host it
 * was sent with: which of two a proxy in front read would be a guess. The
 * connection is closed after the answer, as for any request that is not valid
 * HTTP. HTTP/1.0 requests may leave Host out.
 */
export function assertOneHostHeader(request: RequestLike, reply: ReplyLike): void {
  const count = request.raw.headersDistinct.host?.length ?? 0;
  if (count === 1 || (count === 0 && request.raw.httpVersion === '1.0')) return;
  reply.header('connection', 'close');
  if (count === 0) throw new DomainError(ErrorCode.InvalidJson, 'The request is not valid HTTP/1.1: it has no Host header (RFC 9112 §3.2).');
  throw new DomainError(ErrorCode.InvalidJson, `The request is not valid HTTP/1.1: it has ${count} Host headers, which name different servers or the same one twice (RFC 9112 §3.2).`);
}
