import { DomainError, ErrorCode } from '@mailroom/errors';

/**
 * What is wrong with a request's Host headers, if anything. An HTTP/1.1
 * request names its server in exactly one Host header, and a server must
 * answer 400 to one with none or several (RFC 9112 §3.2); HTTP/1.0 requests
 * may leave it out. Node answered a missing Host itself, with an empty body,
 * and kept the first of several. The API port and the operations port both
 * answer with this error and close the connection, as for any request that
 * is not valid HTTP.
 */
export function hostHeaderProblem(request: { httpVersion: string; headersDistinct: Record<string, string[] | undefined> }): DomainError | undefined {
  const hostHeaders = request.headersDistinct.host?.length ?? 0;
  if (hostHeaders === 1 || (hostHeaders === 0 && request.httpVersion === '1.0')) return undefined;
  if (hostHeaders === 0) return new DomainError(ErrorCode.InvalidJson, 'The request is not valid HTTP/1.1: it has no Host header (RFC 9112 §3.2).');
  return new DomainError(
    ErrorCode.InvalidJson,
    `The request is not valid HTTP/1.1: it has ${hostHeaders} Host headers, which name different servers or the same one twice (RFC 9112 §3.2).`,
  );
}
